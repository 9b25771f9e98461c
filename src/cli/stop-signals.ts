/**
 * Calls `stop` at the first of `signals` (SIGINT and SIGTERM unless given). A signal that comes again while the
 * command stops goes to `again` instead of taking Node's default action, which would end the process before it
 * stored what it holds and printed what it did; `again` decides what a repeat means (logged, or an exit at once).
 * Returns the function that removes the handlers.
 */
export function onStopSignals(
  stop: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'],
): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return again(signal);
    stopping = true;
    stop(signal);
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
