// Builds the browser tracker (web/tracker/sightline.js) into the minified text served at /sdk.js. The server bundle
// and the test runner both import it as the module `virtual:sightline-tracker` (its default export is the text), so
// the script is embedded in dist/main.mjs and never read from disk at run time.
import { buildSync } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const trackerSource = join(root, 'web', 'tracker', 'sightline.js');
export const trackerModuleId = 'virtual:sightline-tracker';

/** The minified tracker, as served. */
export function buildTracker() {
  const result = buildSync({
    entryPoints: [trackerSource],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2017'],
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}

/** The module that exports the tracker's text, for esbuild's and vite's plugins alike. */
export function trackerModuleText() {
  return `export default ${JSON.stringify(buildTracker())};`;
}

/** An esbuild plugin resolving `virtual:sightline-tracker`. */
export const trackerEsbuildPlugin = {
  name: 'sightline-tracker',
  setup(build) {
    build.onResolve({ filter: /^virtual:sightline-tracker$/ }, (args) => ({ path: args.path, namespace: 'sightline-tracker' }));
    build.onLoad({ filter: /.*/, namespace: 'sightline-tracker' }, () => ({ contents: trackerModuleText(), loader: 'js', watchFiles: [trackerSource] }));
  },
};
