/**
 * A value loaded once and then kept fresh in the background: a call within `ttlMs` of the last load
 * gives the kept value; a later call gives it too and starts one reload, whose result the next calls
 * see. Only the first call waits for a load. A failed reload keeps the last value (the next stale
 * call tries again), so a database that went away never slows the callers down.
 */
export function staleValue<V>(load: () => Promise<V>, ttlMs: number): () => Promise<V> {
  let kept: { value: V; at: number } | undefined;
  let loading: Promise<V> | undefined;
  const reload = () => {
    loading ??= load()
      .then((value) => {
        kept = { value, at: Date.now() };
        return value;
      })
      .finally(() => (loading = undefined));
    return loading;
  };
  return async () => {
    if (!kept) return reload();
    if (Date.now() - kept.at >= ttlMs) reload().catch(() => undefined);
    return kept.value;
  };
}
