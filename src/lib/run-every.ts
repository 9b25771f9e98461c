/**
 * Runs `task` at once and then every `everyMs`, one run at a time (a run still going delays the next), as
 * the background loops that clean up after the service do. A failed run is handed to `onError`, and the
 * next round tries again. `stop` ends the rounds and waits for a run under way.
 */
export function runEvery(everyMs: number, task: () => Promise<unknown>, onError: (error: unknown) => void): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const round = () => {
    running = running.then(task).catch(onError);
  };
  const timer = setInterval(round, everyMs);
  timer.unref();
  round();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
