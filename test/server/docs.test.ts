import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../src/config/config.ts';
import { errorStatus } from '../../src/http/errors.ts';

describe('documentation stays in step with the code', () => {
  it('lists every setting in docs/configuration.md with its default', () => {
    const rows = new Map<string, string>();
    for (const match of readFileSync('docs/configuration.md', 'utf8').matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)) rows.set(match[1], match[2].trim());
    const shown = (value: unknown) =>
      value === undefined || (Array.isArray(value) && value.length === 0) ? '(unset)' : `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
    const documented = Object.values(settings).map((setting) => [setting.env, rows.get(setting.env)]);
    const expected = Object.values(settings).map((setting) => [setting.env, shown(setting.default)]);
    expect(documented).toEqual(expected);
  });

  it('lists every error code with its status in docs/api.md', () => {
    const text = readFileSync('docs/api.md', 'utf8');
    const missing = Object.entries(errorStatus)
      .filter(([code, status]) => !new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code}\``).test(text))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
