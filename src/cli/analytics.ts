import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { findProject } from '../accounts/projects.ts';
import { foldProject } from '../analytics/fold/fold.ts';
import { updateIpRanges } from '../analytics/ingest/verify/ip-range-update.ts';
import { countryDatabaseInfo, updateCountries } from '../analytics/ingest/dimensions/country-update.ts';
import { formats, type FormatName } from '../analytics/importers/formats.ts';
import { importLog } from '../analytics/importers/run.ts';
import type { ImportSummary } from '../analytics/importers/line-parser.ts';
import { describeSummary } from './summary.ts';
import { registerTail } from './tail.ts';
import { storeClassificationVersion } from '../analytics/fold/reclassify.ts';
import { analyticsProjects, rebuildProject } from '../analytics/fold/rebuild.ts';
import { createAnalyticsState, directoryOptions } from '../analytics/state.ts';
import { withStorage } from './database.ts';
import { CliError, print } from './output.ts';

/**
 * A one-line progress bar on stderr (redrawn in place on a terminal, every 10% otherwise). The bytes are
 * read ahead of the storing, so the bar reaches 100% while views are still being accepted: `finish`
 * draws the stored totals once more, and the last line agrees with the summary.
 */
function progressBar(total: number | undefined) {
  let lastTenth = -1;
  let lastDrawn = '';
  const line = (bytes: number, summary: ImportSummary) => {
    const fraction = total ? Math.min(1, bytes / total) : undefined;
    const bar = fraction === undefined ? '' : `[${'#'.repeat(Math.round(fraction * 30)).padEnd(30)}] ${(fraction * 100).toFixed(0).padStart(3)}% `;
    const text = `${bar}${summary.lines.toLocaleString('en-US')} lines, ${summary.accepted.toLocaleString('en-US')} accepted, ${summary.skipped.toLocaleString('en-US')} skipped`;
    return { fraction, text };
  };
  return {
    update(bytes: number, summary: ImportSummary) {
      const { fraction, text } = line(bytes, summary);
      if (process.stderr.isTTY) process.stderr.write(`\r${text}`);
      else if (fraction !== undefined && Math.floor(fraction * 10) > lastTenth) {
        lastTenth = Math.floor(fraction * 10);
        process.stderr.write(`${text}\n`);
        lastDrawn = text;
      }
    },
    /** After the import: the final totals, on a terminal ending the line; elsewhere only when they differ from the last line drawn. */
    finish(summary: ImportSummary) {
      const { text } = line(total ?? 0, summary);
      if (process.stderr.isTTY) process.stderr.write(`\r${text}\n`);
      else if (total !== undefined && text !== lastDrawn) process.stderr.write(`${text}\n`);
    },
  };
}

export function registerAnalytics(program: Command): void {
  const analytics = topCommand(program, 'analytics');
  analytics
    .command('import')
    .description('Import page views from an access log (gzip accepted); importing a file again does not count it twice')
    .requiredOption('--project <id>', 'project the views belong to')
    .requiredOption('--format <format>', `log format: ${Object.keys(formats).join(', ')}`)
    .argument('<file>', 'log file, or - for standard input')
    .option('--json', 'print the summary as JSON')
    .action((file: string, flags: { project: string; format: string; json?: boolean }) =>
      withStorage(async (storage, config) => {
        if (!(flags.format in formats)) throw new CliError(`--format must be one of ${Object.keys(formats).join(', ')}; got "${flags.format}".`);
        const project = await findProject(storage.db, flags.project);
        if (!project) throw new CliError(`No project has the id ${flags.project}; "quire projects list" shows them.`);
        let size: number | undefined;
        if (file !== '-') {
          try {
            size = statSync(file).size;
          } catch {
            throw new CliError(`Cannot read ${file}; give the path of a log file, or - to read standard input.`);
          }
        }
        // A file is opened by the import's reading thread; standard input is read here and handed to it.
        const input = file === '-' ? process.stdin : file;
        const analytics = createAnalyticsState(storage, directoryOptions(config));
        const progress = progressBar(size);
        const summary = await importLog(analytics, project, flags.format as FormatName, input, { onProgress: progress.update });
        progress.finish(summary);
        await foldProject(analytics, project.id);
        print(flags, summary, () => describeSummary(summary));
      }),
    );
  registerTail(analytics);
  analytics
    .command('rebuild')
    .description('Recompute visitor sets from the raw events (after a classification update); the server keeps answering meanwhile')
    .option('--project <id>', 'only this project (default: every project with analytics data)')
    .option('--json', 'print JSON')
    .action((flags: { project?: string; json?: boolean }) =>
      withStorage(async (storage, config) => {
        if (flags.project && !(await findProject(storage.db, flags.project)))
          throw new CliError(`No project has the id ${flags.project}; "quire projects list" shows them.`);
        const projects = flags.project ? [flags.project] : await analyticsProjects(storage.db);
        const results: { projectId: string; days: number; views: number }[] = [];
        const analytics = createAnalyticsState(storage, directoryOptions(config));
        for (const projectId of projects) {
          const result = await rebuildProject(analytics, projectId, (done, total) => {
            if (process.stderr.isTTY) process.stderr.write(`\r${projectId}: day ${done} of ${total}`);
          });
          if (process.stderr.isTTY) process.stderr.write('\n');
          results.push({ projectId, ...result });
        }
        if (!flags.project) await storeClassificationVersion(storage.db);
        print(
          flags,
          results,
          () =>
            results.map((result) => `Rebuilt ${result.projectId}: ${result.days} days, ${result.views.toLocaleString('en-US')} counted views.`).join('\n') ||
            'No project has analytics data yet.',
        );
      }),
    );
  analytics
    .command('update-ip-ranges')
    .description('Download the IP ranges operators publish for their crawlers (the files verification compares views against); needs internet access')
    .option('--directory <path>', 'where to write the files (default: the shipped copies)')
    .option('--json', 'print JSON')
    .action(async (flags: { directory?: string; json?: boolean }) => {
      const directory = flags.directory ? pathToFileURL(`${flags.directory.replace(/\/$/, '')}/`) : undefined;
      const results = await updateIpRanges({ directory });
      if (results.every((result) => result.error !== undefined)) {
        throw new CliError(
          `No range file could be downloaded (${results[0]?.error}). Run this on a machine with internet access; the shipped copies stay in use.`,
        );
      }
      print(flags, results, () =>
        results
          .map((result) =>
            result.error === undefined ? `${result.file}: ${result.ranges} ranges` : `${result.file}: kept the previous copy; ${result.url}: ${result.error}`,
          )
          .join('\n'),
      );
    });
  analytics
    .command('update-countries')
    .description('Download a newer IP-to-country database (ip-location-db geo-whois-asn-country; data CC BY 4.0 by the NRO); needs internet access')
    .option('--base-url <url>', 'where the files are published (default: the package on its CDN)')
    .option('--json', 'print JSON')
    .action(async (flags: { baseUrl?: string; json?: boolean }) => {
      const results = await updateCountries({ baseUrl: flags.baseUrl });
      if (results.every((result) => result.error !== undefined))
        throw new CliError(`No file could be downloaded (${results[0]?.error}). Run this on a machine with internet access; the copy in use stays.`);
      const info = countryDatabaseInfo();
      print(flags, { files: results, database: info }, () =>
        [
          ...results.map((result) =>
            result.error === undefined ? `${result.file}: ${result.ranges} ranges` : `${result.file}: kept the previous copy; ${result.url}: ${result.error}`,
          ),
          `In use: the ${info.source} copy of ${info.date}. Restart the server to use it.`,
        ].join('\n'),
      );
    });
}
