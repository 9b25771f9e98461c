/**
 * The first module of Quire's worker threads (threads.ts): `import 'kysely'` resolves to its bundle in
 * this thread too, and then the thread's own script, the last argument, is loaded. A dynamic import, since
 * a static one would be resolved before the hook is registered.
 */
import { useBundledKysely } from './bundled-kysely.ts';

useBundledKysely();
await import(process.argv.at(-1)!);
