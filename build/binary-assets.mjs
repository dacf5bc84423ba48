// What dist/sightline embeds besides its code, in one place: the name the server asks node:sea for
// (src/binary/embedded.ts) → the file the build reads; a name ending in / takes a whole directory (each file as
// name + its relative path). An optional asset whose file does not exist (yet) is left out, and the server falls back
// as outside the executable. To embed a new file (the tracker, the admin UI), add a line.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/**
 * Optional assets' files count as the executable's inputs (`--if-stale`).
 * @param {{ addon: string, workerDir: string }} built  the compiled better-sqlite3 addon and the worker bundles' directory
 * @returns {{ name: string, from: string, optional?: boolean }[]}
 */
export function binaryAssets(built) {
  return [
    { name: 'better_sqlite3.node', from: built.addon },
    { name: 'worker/projector-thread.cjs', from: join(built.workerDir, 'projector-thread.js') },
    { name: 'worker/analysis-thread.cjs', from: join(built.workerDir, 'analysis-thread.js') },
    { name: 'worker/writer-thread.cjs', from: join(built.workerDir, 'writer-thread.js') },
    { name: 'worker/clickhouse-shipping-thread.cjs', from: join(built.workerDir, 'clickhouse-shipping-thread.js') },
    { name: 'worker/import-thread.cjs', from: join(built.workerDir, 'import-thread.js') },
    { name: 'geo-country.mmdb', from: require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb') },
    // The browser tracker and the admin UI need no line: both are modules of the server bundle
    // (virtual:sightline-tracker, build/tracker.mjs; dist/ui-assets.uibundle, build/build-ui.mjs).
  ];
}
