// Builds the admin UI (build-ui.mjs), then bundles src/main.ts into dist/main.mjs, and the worker threads' entries
// beside it, with esbuild; the browser tracker (web/tracker/) is minified into the server bundle and written to
// dist/sdk.js for inspection. `--if-stale` skips the work when dist is newer than the sources.
import { build } from 'esbuild';
import { nodeBundleOptions } from './bundle-options.mjs';
import { buildTracker } from './tracker.mjs';
import { buildUi } from './build-ui.mjs';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const output = join(root, 'dist', 'main.mjs');

function newestSourceTime(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    const time = entry.isDirectory() ? newestSourceTime(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

function isStale() {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  const sources = Math.max(
    newestSourceTime(join(root, 'src')),
    newestSourceTime(join(root, 'web')),
    statSync(join(root, 'schema.sql')).mtimeMs,
    statSync(join(root, 'package.json')).mtimeMs,
  );
  return sources > built;
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

// First: the server bundle embeds the UI's files.
await buildUi();
await build({
  entryPoints: {
    main: join(root, 'src', 'main.ts'),
    'writer-thread': join(root, 'src', 'ingest', 'writer-thread.ts'),
    'projector-thread': join(root, 'src', 'projector-thread.ts'),
    'analysis-thread': join(root, 'src', 'analysis-thread.ts'),
    'clickhouse-shipping-thread': join(root, 'src', 'clickhouse', 'shipping-thread.ts'),
    'import-thread': join(root, 'src', 'imports', 'import-thread.ts'),
  },
  outdir: join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  ...nodeBundleOptions,
  sourcemap: 'linked',
});
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'sdk.js'), buildTracker());
