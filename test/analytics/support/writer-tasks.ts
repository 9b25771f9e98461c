/** Functions tests run on the writing thread (Storage.writer). */

/** Keeps the writing thread busy for `milliseconds`, as a long fold or repair under a load does: its next tasks wait. */
export async function occupy(_storage: unknown, milliseconds: number): Promise<void> {
  const until = Date.now() + milliseconds;
  while (Date.now() < until);
}
