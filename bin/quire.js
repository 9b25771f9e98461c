#!/usr/bin/env node
// Quire runs on the Node 24 that the repository pins (npm package `node@24`), which strips
// TypeScript types natively. When started by an older system Node, run the pinned one as a child.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import module from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src', 'cli', 'main.ts');
const args = process.argv.slice(2);
const [major, minor] = process.versions.node.split('.').map(Number);
const recentNode = major > 22 || (major === 22 && minor >= 18);

// `quire serve` runs with these Node flags (`serverNodeFlags` in src/lib/thread-memory.ts: a smaller young
// generation for the event loop, the old generation's growth bounded). V8 reads them only as a process starts,
// so a server started without them (`npx quire serve`) runs as a child that has them. Flags of the same name
// given by the user are kept.
const serverFlags = ['--max-semi-space-size=16', '--heap-growing-percent=100'];
// V8 takes `--max_semi_space_size` for `--max-semi-space-size`, so names are compared with dashes.
const flagName = (flag) => flag.split('=')[0].replaceAll('_', '-');
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(flagName);
const verb = args.find((arg) => !arg.startsWith('-'));
const flags = verb === 'serve' ? serverFlags.filter((flag) => !given.includes(flagName(flag))) : [];
// And with this environment (`serverEnvironment` in src/lib/thread-memory.ts: glibc's malloc in two arenas), which
// glibc too reads only as a process starts. A value the user gave is kept.
const serverEnvironment = { MALLOC_ARENA_MAX: '2' };
const environment = verb === 'serve' ? Object.entries(serverEnvironment).filter(([name]) => process.env[name] === undefined) : [];

if (recentNode) {
  // Node keeps the code it compiled (with the types stripped) on disk, so every start after the first skips
  // stripping and compiling Quire's modules: most of a short verb's start-up. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  // Worker threads and child processes find it in the environment.
  const compileCache = module.enableCompileCache();
  if (compileCache?.directory) process.env.NODE_COMPILE_CACHE ??= compileCache.directory;
}

if (recentNode && flags.length === 0 && environment.length === 0) {
  await import(entry);
} else {
  const node = recentNode ? process.execPath : join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node)) {
    console.error(`Quire needs Node 22.18 or newer (found ${process.versions.node}). Run "npm install" in ${root} to fetch the pinned Node 24.`);
    process.exit(1);
  }
  const child = spawn(node, [...flags, entry, ...args], { stdio: 'inherit', env: { ...process.env, ...Object.fromEntries(environment) } });
  // A supervisor signals this process only, so it passes each stop signal on, once. At a terminal, Ctrl-C and
  // a hang-up already reach the whole foreground process group, the child included: passing those on would
  // deliver them twice, and a second signal means "exit at once".
  const reachesChildDirectly = process.stdin.isTTY ? ['SIGINT', 'SIGHUP'] : [];
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(signal, () => {
      if (!reachesChildDirectly.includes(signal)) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    console.error(`Could not start ${node}: ${error.message}`);
    process.exit(1);
  });
  // Exit as the child did: its code, or 128 + the number of the signal that ended it (as a shell reports it).
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}
