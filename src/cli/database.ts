import { loadConfig, type Config } from '../config/config.ts';
import { openStorage, type Storage } from '../storage/open.ts';

/** Runs `action` against the database a server with the same environment would use. */
export async function withStorage<T>(action: (storage: Storage, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const storage = await openStorage(config);
  try {
    return await action(storage, config);
  } finally {
    await storage.close();
  }
}
