import { describe, expect, it } from 'vitest';
import { withoutNumberPrefix } from '../../src/sites/docusaurus.ts';
import { moduleObject } from '../../src/sites/javascript-literal.ts';

describe('Docusaurus sidebars and doc ids', () => {
  it('never runs the sidebars file and reads what is literal in code-built sidebars', () => {
    const value = moduleObject(`const fs = require('fs'); fs.writeFileSync('/tmp/pwned', 'x');
module.exports = { docs: [...generated(), 'intro', { type: 'doc', id: \`guides/\${name}\` }, "a\\"b", /* ] */ { type: 'doc', id: 'x' }] };`);
    expect(JSON.stringify(value)).toBe(
      JSON.stringify({
        kind: 'object',
        entries: [
          [
            'docs',
            {
              kind: 'array',
              items: [
                { kind: 'other' },
                { kind: 'string', value: 'intro', line: 2 },
                {
                  kind: 'object',
                  entries: [
                    ['type', { kind: 'string', value: 'doc', line: 2 }],
                    ['id', { kind: 'other' }],
                  ],
                },
                { kind: 'string', value: 'a"b', line: 2 },
                {
                  kind: 'object',
                  entries: [
                    ['type', { kind: 'string', value: 'doc', line: 2 }],
                    ['id', { kind: 'string', value: 'x', line: 2 }],
                  ],
                },
              ],
            },
          ],
        ],
      }),
    );
    expect(moduleObject(`module.exports = ${'{a: ['.repeat(10_000)}`).kind).toBe('object');
  });

  it('strips number prefixes as Docusaurus does', () => {
    expect(['01-intro', '2_setup', '10. faq', '2024', '3d-models', 'intro'].map(withoutNumberPrefix)).toEqual([
      'intro',
      'setup',
      'faq',
      '2024',
      '3d-models',
      'intro',
    ]);
  });
});
