/**
 * Runs one storage operation in a process of its own against a test database, as a second Quire
 * process would: `node test/support/storage-process.ts <operation>` with the database's environment.
 * Prints the operation's result as one line of JSON.
 */
import { loadConfig } from '../../src/config/config.ts';
import { takeRateLimit } from '../../src/http/rate-limit.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { openStorage } from '../../src/storage/open.ts';

const operations: Record<string, (storage: Awaited<ReturnType<typeof openStorage>>) => Promise<unknown>> = {
  async migrate(storage) {
    return (await migrate(storage)).map((migration) => migration.version);
  },
  async 'rate-limit'(storage) {
    const rule = { limit: Number(process.env.LIMIT), windowMs: 60_000 };
    const attempts = Array.from({ length: Number(process.env.ATTEMPTS) }, () =>
      storage.db.transaction().execute((trx) => takeRateLimit(trx, storage.profile, 'conformance', rule)),
    );
    return (await Promise.all(attempts)).filter((state) => state.allowed).length;
  },
  async 'insert-organization'(storage) {
    await storage.db
      .insertInto('organizations')
      .values({ id: `org_${process.pid}`, name: 'Written by another process', created_at: Date.now(), first_start: 0, server_credentials: 0 })
      .execute();
    return true;
  },
};

const storage = await openStorage(loadConfig(), { migrate: false });
try {
  process.stdout.write(`${JSON.stringify(await operations[process.argv[2]](storage))}\n`);
} finally {
  await storage.close();
}
