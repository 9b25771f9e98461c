import { html, type Html } from '../html.ts';

const width = 720;
const height = 180;
const margin = { top: 10, right: 8, bottom: 26, left: 40 };

/**
 * Searches without hits per day as one row of bars, inline SVG like the visitors chart (chart.ts);
 * each bar carries its day and count in a tooltip title and data attributes.
 */
export function noHitsChart(days: { day: string; noHits: number; searches: number }[]): Html {
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const maximum = Math.max(1, ...days.map((day) => day.noHits));
  const slot = plotWidth / Math.max(days.length, 1);
  const y = (value: number) => margin.top + plotHeight - (value / maximum) * plotHeight;
  const labelEvery = Math.ceil(days.length / 8);
  const bars = days.map((day, index) => {
    const x = margin.left + index * slot + slot * 0.15;
    const label =
      index % labelEvery === 0
        ? html`<text x="${(margin.left + index * slot + slot / 2).toFixed(2)}" y="${height - 8}" text-anchor="middle" font-size="11" fill="#4a5360">${day.day.slice(5)}</text>`
        : '';
    return html`<rect class="bar no-hits" data-day="${day.day}" data-no-hits="${day.noHits}" x="${x.toFixed(2)}" y="${y(day.noHits).toFixed(2)}" width="${(slot * 0.7).toFixed(2)}" height="${(margin.top + plotHeight - y(day.noHits)).toFixed(2)}" fill="#b3470f"><title>${day.day}: ${day.noHits} of ${day.searches} searches found nothing</title></rect>${label}`;
  });
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="no-hits-title" preserveAspectRatio="xMidYMid meet">
<title id="no-hits-title">Searches without hits per day, ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}</title>
<line class="axis" x1="${margin.left}" x2="${width - margin.right}" y1="${y(0)}" y2="${y(0)}" stroke-opacity="0.3"/>
<text x="${margin.left - 6}" y="${y(maximum) + 4}" text-anchor="end" font-size="11" fill="#4a5360">${maximum}</text>
${bars}
</svg>
</figure>`;
}
