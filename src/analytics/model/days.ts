export const dayMs = 24 * 60 * 60 * 1000;

/** The UTC day number (days since 1970-01-01) of an epoch-millisecond time. */
export function dayOf(at: number): number {
  return Math.floor(at / dayMs);
}
