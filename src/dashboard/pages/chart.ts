import { html, type Html } from '../html.ts';

export interface DayCounts {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  human: number;
  ai: number;
}

/** The plot's height in CSS pixels; its width is the box's (the chart never scrolls sideways). */
const height = 240;
const top = 18;
const bottom = 26;
/** Labels on the day axis: at most this many on a wide screen, half of them on a phone (CSS hides the `minor` ones). */
const mostLabels = 8;
/** Above this many days, each day's point is drawn only for the last day (the line alone reads better). */
const mostPoints = 31;

/** A rounded-up axis maximum (1, 2 or 5 times a power of ten) so tick labels are readable numbers. */
function axisMaximum(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}

/** The days that get a label: the last one (today, on the usual ranges) always, then every `step` days before it. */
function labelledDays(count: number): Map<number, 'major' | 'minor'> {
  const step = Math.max(1, Math.ceil(count / mostLabels));
  const labelled = new Map<number, 'major' | 'minor'>();
  for (let index = count - 1, nth = 0; index >= 0; index -= step, nth++) labelled.set(index, nth % 2 === 0 ? 'major' : 'minor');
  return labelled;
}

/**
 * Human and AI visitors per day as two lines, drawn on the server as inline SVG (no script needed),
 * and the previous period of the same length as dashed lines in the same colours when given. The
 * SVG has no fixed width: days sit at percentages of the box and text keeps its pixel size, so the
 * chart fits a phone as it fits a desktop. The lines are in a nested SVG stretched to the box, with
 * strokes that do not scale. Each day's point carries its numbers in data attributes and a title.
 */
export function visitorsChart(days: DayCounts[], previous?: DayCounts[]): Html {
  const count = Math.max(days.length, 1);
  const plot = height - top - bottom;
  const compared = previous ?? [];
  const maximum = axisMaximum(Math.max(0, ...[...days, ...compared].map((day) => Math.max(day.human, day.ai))));
  const y = (value: number) => plot - (value / maximum) * plot;
  const x = (index: number) => (((index + 0.5) / count) * 100).toFixed(3);
  const line = (series: DayCounts[], kind: 'human' | 'ai', dashed: boolean) =>
    series.length === 0
      ? ''
      : html`<polyline class="line ${kind}${dashed ? ' previous' : ''}" points="${series.map((day, index) => `${index + 0.5},${y(day[kind]).toFixed(2)}`).join(' ')}" fill="none" vector-effect="non-scaling-stroke"/>`;
  const ticks = [0, maximum / 2, maximum].map(
    (value) => html`<line class="grid" x1="0" x2="100%" y1="${top + y(value)}" y2="${top + y(value)}"/>
<text class="tick" x="0" y="${top + y(value) - 4}">${Number.isInteger(value) ? value : value.toFixed(1)}</text>`,
  );
  const labelled = labelledDays(days.length);
  const labels = days.map((day, index) => {
    const kind = labelled.get(index);
    if (kind === undefined) return '';
    // The last label ends at its day, the first starts at its day, so neither is cut at the box's edge.
    const anchor = index === days.length - 1 ? 'end' : index === 0 ? 'start' : 'middle';
    return html`<text class="day ${kind}" x="${x(index)}%" y="${height - 8}" text-anchor="${anchor}" data-day="${day.day}">${day.day.slice(5)}</text>`;
  });
  const points = days.flatMap((day, index) =>
    (['human', 'ai'] as const).map((kind) => {
      const radius = days.length <= mostPoints || index === days.length - 1 ? 3.5 : 0;
      const before = compared[index];
      const was = before ? `; ${before[kind]} on ${before.day}` : '';
      return html`<circle class="point ${kind}" data-day="${day.day}" data-${kind}="${day[kind]}" cx="${x(index)}%" cy="${(top + y(day[kind])).toFixed(2)}" r="${radius}"><title>${day.day}: ${day[kind]} ${kind === 'ai' ? 'AI' : 'human'} visitors${was}</title></circle>`;
    }),
  );
  const range = `${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}`;
  const compareText = previous ? `, with the previous period (${previous[0]?.day ?? ''} to ${previous.at(-1)?.day ?? ''}) dashed` : '';
  return html`<figure class="chart">
<svg class="plot" width="100%" height="${height}" role="img" aria-labelledby="chart-title">
<title id="chart-title">Human and AI visitors per day, ${range}${compareText}; the daily numbers are in the table below the chart</title>
${ticks}
<svg x="0" y="${top}" width="100%" height="${plot}" viewBox="0 0 ${count} ${plot}" preserveAspectRatio="none" overflow="visible">${line(compared, 'human', true)}${line(compared, 'ai', true)}${line(days, 'human', false)}${line(days, 'ai', false)}</svg>
${points}${labels}
</svg>
<figcaption><ul class="legend"><li><span class="swatch human"></span>Human visitors</li><li><span class="swatch ai"></span>AI visitors</li>${previous ? html`<li id="legend-previous"><span class="swatch previous"></span>Previous period (dashed)</li>` : ''}</ul></figcaption>
</figure>`;
}
