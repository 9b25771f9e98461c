#!/usr/bin/env node
// Quire runs on the Node 24 that the repository pins (npm package `node@24`), which strips
// TypeScript types natively. When started by an older system Node, re-run with the pinned one.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src', 'cli', 'main.ts');
const [major, minor] = process.versions.node.split('.').map(Number);

if (major > 22 || (major === 22 && minor >= 18)) {
  await import(entry);
} else {
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(pinned)) {
    console.error(`Quire needs Node 22.18 or newer (found ${process.versions.node}). Run "npm install" in ${root} to fetch the pinned Node 24.`);
    process.exit(1);
  }
  const result = spawnSync(pinned, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
