/**
 * Calls `stop` at the first SIGINT or SIGTERM. A signal that comes again while the command stops (a supervisor
 * and a wrapper both passing one on) goes to `again` instead of taking Node's default action, which would end the
 * process before it stored what it holds and printed what it did. Returns the function that removes the handlers.
 */
export function onStopSignals(stop: () => void, again: (signal: NodeJS.Signals) => void): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return again(signal);
    stopping = true;
    stop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
