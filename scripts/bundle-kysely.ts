/**
 * Bundles the installed Kysely's ES modules into one file, which Quire's processes load instead
 * (src/lib/bundled-kysely.ts says why). `npm install` runs it (postinstall); `npm run bundle:kysely`
 * runs it again. `--out FILE` writes the bundle elsewhere (the tests do).
 */
import { mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'rolldown';
import { kyselyBundle } from '../src/lib/bundled-kysely.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const { entry, version, path } = kyselyBundle();
const out = values.out ?? path;
mkdirSync(dirname(out), { recursive: true });
// Written beside and renamed into place: a process starting meanwhile finds the whole bundle or none.
const partial = `${out}.${process.pid}.partial`;
await build({ input: entry, output: { file: partial, format: 'esm' }, logLevel: 'warn' });
renameSync(partial, out);
process.stdout.write(`Kysely ${version} bundled into ${out}\n`);
