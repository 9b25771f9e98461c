import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../src/config/config.ts';
import { errorStatus } from '../../src/http/errors.ts';

describe('documentation stays in step with the code', () => {
  it('lists every setting in docs/configuration.md', () => {
    const text = readFileSync('docs/configuration.md', 'utf8');
    const missing = Object.values(settings).filter((setting) => !text.includes(`\`${setting.env}\``)).map((setting) => setting.env);
    expect(missing).toEqual([]);
  });

  it('lists every error code with its status in docs/api.md', () => {
    const text = readFileSync('docs/api.md', 'utf8');
    const missing = Object.entries(errorStatus).filter(([code, status]) => !new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code}\``).test(text)).map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
