import { html, type Html } from '../html.ts';

export interface DayCounts {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  human: number;
  ai: number;
}

const width = 720;
const height = 260;
const margin = { top: 12, right: 8, bottom: 28, left: 44 };

/** A rounded-up axis maximum (1, 2 or 5 times a power of ten) so tick labels are readable numbers. */
function axisMaximum(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}

/**
 * Human and AI visitors per day as grouped bars, drawn on the server as inline SVG (no script
 * needed). Each bar carries its numbers in data attributes and a tooltip title.
 */
export function visitorsChart(days: DayCounts[]): Html {
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const maximum = axisMaximum(Math.max(0, ...days.map((day) => Math.max(day.human, day.ai))));
  const slot = plotWidth / Math.max(days.length, 1);
  const barWidth = Math.max(1, slot * 0.38);
  const y = (value: number) => margin.top + plotHeight - (value / maximum) * plotHeight;
  const labelEvery = Math.ceil(days.length / 8);

  const ticks = [0, maximum / 2, maximum].map(
    (value) => html`<line class="axis" x1="${margin.left}" x2="${width - margin.right}" y1="${y(value)}" y2="${y(value)}" stroke-opacity="0.3"/>
<text x="${margin.left - 6}" y="${y(value) + 4}" text-anchor="end" font-size="11" fill="#4a5360">${Number.isInteger(value) ? value : value.toFixed(1)}</text>`,
  );
  const bars = days.map((day, index) => {
    const x = margin.left + index * slot + (slot - 2 * barWidth) / 2;
    const bar = (kind: 'human' | 'ai', offset: number, colour: string) =>
      html`<rect class="bar ${kind}" data-day="${day.day}" data-${kind}="${day[kind]}" x="${(x + offset).toFixed(2)}" y="${y(day[kind]).toFixed(2)}" width="${barWidth.toFixed(2)}" height="${(margin.top + plotHeight - y(day[kind])).toFixed(2)}" fill="${colour}"><title>${day.day}: ${day[kind]} ${kind === 'ai' ? 'AI' : 'human'} visitors</title></rect>`;
    const label =
      index % labelEvery === 0
        ? html`<text x="${(margin.left + index * slot + slot / 2).toFixed(2)}" y="${height - 8}" text-anchor="middle" font-size="11" fill="#4a5360">${day.day.slice(5)}</text>`
        : '';
    return html`${bar('human', 0, '#0b5cad')}${bar('ai', barWidth, '#b3470f')}${label}`;
  });
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">Human and AI visitors per day, ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}; the daily numbers are in the table below the chart</title>
${ticks}${bars}
</svg>
<figcaption><ul class="legend"><li><span class="swatch human"></span>Human visitors</li><li><span class="swatch ai"></span>AI visitors</li></ul></figcaption>
</figure>`;
}
