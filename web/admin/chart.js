// @ts-check
// The visitors/pageviews chart (uPlot): one line per measure for the period, and the previous period's visitors as a
// dashed line on the same days' positions. Colours come from the stylesheet, so light and dark both hold.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from './html.js';
/** @import { SummaryData } from './types.js' */

/** @param {string} name a custom property of the stylesheet (--accent) */
const cssColour = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * @param {{ series: SummaryData['series'], previous?: SummaryData['series'], previousLabel: string, theme: string }} props
 *   theme: redraws the chart when it changes (its colours are the stylesheet's)
 */
export function VisitsChart({ series, previous, previousLabel, theme }) {
  const container = useRef(/** @type {HTMLDivElement | null} */ (null));
  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const xs = series.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000);
    /** @type {[number[], ...(number | null)[][]]} */
    const data = [xs, series.map((day) => day.visitors), series.map((day) => day.pageviews)];
    /** @type {uPlot.Series[]} */
    const lines = [
      { label: 'Visitors', stroke: cssColour('--accent'), width: 2, fill: cssColour('--accent-fill') },
      { label: 'Pageviews', stroke: cssColour('--second'), width: 1.5 },
    ];
    if (previous) {
      data.push(series.map((_, index) => previous[index]?.visitors ?? null));
      lines.push({ label: previousLabel, stroke: cssColour('--muted'), width: 1.5, dash: [6, 4] });
    }
    const axis = { stroke: cssColour('--muted'), grid: { stroke: cssColour('--grid'), width: 1 }, ticks: { stroke: cssColour('--grid') } };
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 240,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        series: [{}, ...lines],
        axes: [
          { ...axis, space: 60, incrs: [86_400, 7 * 86_400, 28 * 86_400, 365 * 86_400], values: (_plot, splits) => splits.map((seconds) => new Date(seconds * 1000).toISOString().slice(5, 10)) },
          { ...axis, size: 50 },
        ],
        scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(1, max) * 1.1] } },
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 240 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, previous, previousLabel, theme]);
  return html`<div class="chart" ref=${container} role="img" aria-label="Visitors and pageviews per day"></div>`;
}
