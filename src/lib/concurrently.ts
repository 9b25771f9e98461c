/**
 * `map(item)` for every item, at most `limit` at a time, the results in the items' order: for
 * reading many small files, where one read after another leaves the disk idle and all at once
 * would hold thousands of open files.
 */
export async function mapConcurrently<Item, Result>(items: readonly Item[], limit: number, map: (item: Item) => Promise<Result>): Promise<Result[]> {
  const results: Result[] = new Array<Result>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
