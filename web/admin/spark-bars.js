// @ts-check
// A small bar chart as SVG (no inline style: the CSP forbids it; colours come from the stylesheet's classes).
import { html } from './html.js';

/**
 * @param {{ values: number[], label: string, height?: number, className?: string }} props
 *   label: what the bars are (read by screen readers)
 */
export function SparkBars({ values, label, height = 32, className = '' }) {
  const max = Math.max(1, ...values);
  const width = values.length * 4;
  return html`<svg class=${`spark ${className}`} viewBox=${`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label=${label}>
    ${values.map((value, index) => {
      const barHeight = value === 0 ? 0.5 : Math.max(1, (value / max) * height);
      return html`<rect x=${index * 4 + 0.5} y=${height - barHeight} width="3" height=${barHeight} class=${value === 0 ? 'empty' : ''}><title>${value}</title></rect>`;
    })}
  </svg>`;
}
