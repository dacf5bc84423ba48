// @ts-check
// The visitors/pageviews chart (uPlot): one line per measure for the period, and the comparison's visitors as a
// dashed line on the same points' positions. Hours for a day (24 points), days, weeks or months otherwise, as
// summary-v2's `interval` says. The legend shows the newest point until the pointer picks another (never "--").
// Colours come from the stylesheet, so light and dark both hold.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from './html.js';
/** @import { SummaryData } from './types.js' */

/** @param {string} name a custom property of the stylesheet (--accent) */
const cssColour = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** A point's date (YYYY-MM-DD, or the ISO hour) in seconds since the epoch. */
const secondsOf = (/** @type {string} */ date) => Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date) / 1000;

/** @param {number} seconds @param {string} interval */
const labelOf = (seconds, interval) => {
  const iso = new Date(seconds * 1000).toISOString();
  return interval === 'hour' ? `${iso.slice(11, 13)}:00` : interval === 'month' ? iso.slice(0, 7) : iso.slice(5, 10);
};

/**
 * @param {{ series: SummaryData['series'], interval: string, previous?: SummaryData['series'], previousLabel: string, theme: string }} props
 *   theme: redraws the chart when it changes (its colours are the stylesheet's)
 */
export function VisitsChart({ series, interval, previous, previousLabel, theme }) {
  const container = useRef(/** @type {HTMLDivElement | null} */ (null));
  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const xs = series.map((point) => secondsOf(point.date));
    /** @type {[number[], ...(number | null)[][]]} */
    const data = [xs, series.map((point) => point.visitors), series.map((point) => point.pageviews)];
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
    const hourly = interval === 'hour';
    const newest = Math.max(0, xs.length - 1);
    /** The legend shows the newest point when the pointer is on none. */
    const showNewest = (/** @type {uPlot} */ plot) => {
      if (plot.cursor.idx === null || plot.cursor.idx === undefined) plot.setLegend({ idx: newest });
    };
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 240,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        series: [{ label: hourly ? 'Hour (UTC)' : 'Date', value: (_plot, seconds) => (seconds === null ? '' : hourly ? `${new Date(seconds * 1000).toISOString().slice(0, 13).replace('T', ' ')}:00` : new Date(seconds * 1000).toISOString().slice(0, 10)) }, ...lines],
        axes: [
          {
            ...axis,
            space: hourly ? 40 : 60,
            incrs: hourly ? [3_600, 3 * 3_600, 6 * 3_600, 12 * 3_600, 86_400] : [86_400, 7 * 86_400, 28 * 86_400, 365 * 86_400],
            values: (_plot, splits) => splits.map((seconds) => labelOf(seconds, interval)),
          },
          { ...axis, size: 50 },
        ],
        scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(1, max) * 1.1] } },
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
        hooks: { ready: [showNewest], setCursor: [showNewest] },
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
  }, [series, interval, previous, previousLabel, theme]);
  return html`<div class="chart" ref=${container} role="img" aria-label=${`Visitors and pageviews per ${interval}`} data-points=${series.length}></div>`;
}
