import type { Command } from 'commander';
import { findProject } from '../accounts/projects.ts';
import { foldProject } from '../analytics/fold/fold.ts';
import { formats, type FormatName } from '../analytics/importers/formats.ts';
import type { ImportSummary } from '../analytics/importers/line-parser.ts';
import { tailLog } from '../analytics/importers/tail.ts';
import { createAnalyticsState, directoryOptions } from '../analytics/state.ts';
import { withStorage } from './database.ts';
import { describeSummary } from './summary.ts';
import { CliError, print } from './output.ts';
import { onStopSignals } from './stop-signals.ts';

/** The longest `--poll` (an hour) and `--status-every` (a day): both well under what a timer can wait. */
const maxPollMs = 3_600_000;
const maxStatusSeconds = 86_400;

/**
 * The status of a tail: lines per second over the last interval and totals, redrawn in place every
 * second on a terminal, one plain line every `everySeconds` otherwise (a service's log).
 */
function statusLine(everySeconds: number) {
  let lastLines = 0;
  let lastTime = performance.now();
  let summary: ImportSummary | undefined;
  const tty = process.stderr.isTTY === true;
  const timer = setInterval(
    () => {
      if (!summary) return;
      const now = performance.now();
      const rate = ((summary.lines - lastLines) / (now - lastTime)) * 1000;
      lastLines = summary.lines;
      lastTime = now;
      const text = `${Math.round(rate).toLocaleString('en-US')} lines/s; ${summary.lines.toLocaleString('en-US')} lines, ${summary.accepted.toLocaleString('en-US')} views stored, ${summary.skipped.toLocaleString('en-US')} skipped`;
      process.stderr.write(tty ? `\r\x1b[2K${text}` : `${new Date().toISOString()} ${text}\n`);
    },
    (tty ? 1 : everySeconds) * 1000,
  );
  return {
    update: (next: ImportSummary) => (summary = next),
    stop: () => {
      clearInterval(timer);
      if (tty) process.stderr.write('\n');
    },
  };
}

export function registerTail(analytics: Command): void {
  analytics
    .command('tail')
    .description('Follow a growing access log (across rotation by rename or copytruncate) and store its views as they come; resumes where it stopped')
    .requiredOption('--project <id>', 'project the views belong to')
    .requiredOption('--format <format>', `log format: ${Object.keys(formats).join(', ')}`)
    .argument('<file>', 'log file to follow')
    .option('--poll <milliseconds>', 'how often to look for new lines and rotation', '250')
    .option('--batch-size <events>', 'events per transaction; a batch is also stored whenever the tail catches up', '10000')
    .option('--status-every <seconds>', 'seconds between status lines when standard error is not a terminal', '60')
    .option('--json', 'print the final summary as JSON')
    .action((file: string, flags: { project: string; format: string; poll: string; batchSize: string; statusEvery: string; json?: boolean }) =>
      withStorage(async (storage, config) => {
        if (!(flags.format in formats)) throw new CliError(`--format must be one of ${Object.keys(formats).join(', ')}; got "${flags.format}".`);
        const poll = Number(flags.poll);
        const every = Number(flags.statusEvery);
        // Timers take at most 2^31 - 1 ms; a longer one fires at once, so a typo in a unit would poll in a busy loop.
        if (!Number.isInteger(poll) || poll < 10 || poll > maxPollMs)
          throw new CliError(`--poll takes milliseconds, from 10 to ${maxPollMs} (an hour); got "${flags.poll}".`);
        const batchSize = Number(flags.batchSize);
        if (!Number.isInteger(batchSize) || batchSize < 1) throw new CliError(`--batch-size takes a whole number of events; got "${flags.batchSize}".`);
        if (!Number.isFinite(every) || every <= 0 || every > maxStatusSeconds)
          throw new CliError(`--status-every takes a number of seconds, above 0 and at most ${maxStatusSeconds} (a day); got "${flags.statusEvery}".`);
        const project = await findProject(storage.db, flags.project);
        if (!project) throw new CliError(`No project has the id ${flags.project}; "quire projects list" shows them.`);
        const analytics = createAnalyticsState(storage, directoryOptions(config));
        const stop = new AbortController();
        const removeSignalHandlers = onStopSignals(
          () => stop.abort(),
          () => process.stderr.write('Already stopping: storing what was read, then printing the summary.\n'),
        );
        const status = statusLine(every);
        process.stderr.write(`Following ${file} for ${project.id} (Ctrl-C stops; a restart resumes where this stops).\n`);
        try {
          const summary = await tailLog(analytics, project, flags.format as FormatName, file, {
            signal: stop.signal,
            pollMilliseconds: poll,
            batchSize,
            onBatch: status.update,
          });
          status.stop();
          await foldProject(analytics, project.id);
          print(flags, summary, () => describeSummary(summary));
        } finally {
          status.stop();
          removeSignalHandlers();
        }
      }),
    );
}
