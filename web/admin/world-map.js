// @ts-check
// A world map of the countries breakdown: Natural Earth's 1:110m countries (world-atlas, TopoJSON, bundled: nothing
// is fetched), drawn once with d3-geo's Equal Earth projection as SVG paths, each country shaded by its share of the
// largest one's visitors. A country clicked filters the dashboard by it. The map's countries are named, not coded:
// their ISO codes come from Intl.DisplayNames' English names, with the few names Natural Earth abbreviates below.
import { geoEqualEarth, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import world from 'world-atlas/countries-110m.json';
import { countryName, formatCount } from './format.js';
import { html } from './html.js';
import { useAnswer } from './use-answer.js';
import { reportQuery, windowOf } from './view-state.js';
import { schemaKey } from './api.js';
/** @import { Range } from './view-state.js' */

/** Natural Earth's short names whose English region names differ (N. Cyprus and Somaliland have no ISO code). */
const aliases = /** @type {Record<string, string>} */ ({
  'W. Sahara': 'EH', 'United States of America': 'US', 'Dem. Rep. Congo': 'CD', 'Dominican Rep.': 'DO', 'Falkland Is.': 'FK',
  'Fr. S. Antarctic Lands': 'TF', 'Central African Rep.': 'CF', Congo: 'CG', 'Eq. Guinea': 'GQ', Palestine: 'PS', Myanmar: 'MM',
  Turkey: 'TR', 'Solomon Is.': 'SB', 'Bosnia and Herz.': 'BA', Macedonia: 'MK', 'Trinidad and Tobago': 'TT', 'S. Sudan': 'SS',
});

const width = 900;
const height = 440;

/** name → ISO code, from the English region names of every two-letter code. */
function codesByName() {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const normal = (/** @type {string} */ text) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[’']/g, "'").toLowerCase();
  /** @type {Map<string, string>} */
  const codes = new Map();
  for (let first = 65; first <= 90; first++) {
    for (let second = 65; second <= 90; second++) {
      const code = String.fromCharCode(first, second);
      const name = names.of(code);
      if (name && name !== code) codes.set(normal(name), code);
    }
  }
  return (/** @type {string} */ name) => aliases[name] ?? codes.get(normal(name)) ?? null;
}

/** The countries as SVG path data with their codes, computed once. */
const shapes = (() => {
  const codeOf = codesByName();
  const countries = /** @type {{ features: { properties: { name: string } }[] }} */ (/** @type {unknown} */ (feature(/** @type {any} */ (world), /** @type {any} */ (world).objects.countries)));
  const projection = geoEqualEarth().fitSize([width, height], /** @type {any} */ (countries));
  const path = geoPath(projection);
  return countries.features.map((country) => ({ name: country.properties.name, code: codeOf(country.properties.name), d: path(/** @type {any} */ (country)) ?? '' }));
})();

/**
 * @param {{ site: string, range: Range, filters: Record<string, string>, onFilter: (name: string, value: string) => void }} props
 */
export function WorldMap({ site, range, filters, onFilter }) {
  const answer = useAnswer(
    `/v1/sites/${encodeURIComponent(site)}/reports/breakdown-v2?${reportQuery(range, filters, { by: 'country', limit: 200, ...windowOf(range) })}`,
    schemaKey('GET', '/sites/{siteId}/reports/breakdown-v2'),
  );
  /** @type {Map<string, number>} */
  const visitors = new Map(answer.status === 'ready' ? answer.data.data.rows.map((row) => [row.value, row.visitors]) : []);
  const top = Math.max(1, ...visitors.values());
  return html`<section class="panel world-map">
    <header class="panel-head"><h2>Map</h2></header>
    ${answer.status === 'error' ? html`<p class="state error" role="alert">${answer.error}</p>` : null}
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label="Visitors by country">
      ${shapes.map((shape) => {
        const count = shape.code ? visitors.get(shape.code) ?? 0 : 0;
        const level = count === 0 ? 0 : Math.min(4, 1 + Math.floor((count / top) * 3.999));
        return html`<path d=${shape.d} class=${`country-shape level-${level}`} data-code=${shape.code ?? ''}
          onClick=${count > 0 && shape.code ? () => onFilter('country', /** @type {string} */ (shape.code)) : undefined}>
          <title>${shape.code ? countryName(shape.code) : shape.name}: ${formatCount(count)} visitors</title>
        </path>`;
      })}
    </svg>
  </section>`;
}
