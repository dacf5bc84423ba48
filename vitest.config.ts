// Test runner configuration: schema.sql and the built admin UI are imported as text, and the browser tracker as its
// minified text, exactly as esbuild does for the bundle.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { trackerModuleId, trackerModuleText } from './build/tracker.mjs';

/**
 * vitest's order (the longest files of the last run first, or the largest without one), except that the single
 * executable's test starts first: on a fresh machine its cold build (an npm install and better-sqlite3's addon compiled for Node 24,
 * about 30 s on 2 cores) makes it a long file, and started late it would end the run alone. Starting every file known
 * to run long first (ClickHouse's, the browser's, the differential ones) was tried: they contended with one another and
 * the fresh-clone run took 883 s of vitest instead of 739 s (2026-11-27): vitest's order mixes long and short files.
 */
class BinaryFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isBinary = (file: TestSpecification) => file.moduleId.includes('/test/binary/');
    return [...sorted.filter(isBinary), ...sorted.filter((file) => !isBinary(file))];
  }
}

export default defineConfig({
  plugins: [
    {
      name: 'sql-as-text',
      transform(code, id) {
        if (id.endsWith('.sql') || id.endsWith('.uibundle')) return { code: `export default ${JSON.stringify(code)};`, map: null };
        return undefined;
      },
    },
    {
      name: 'sightline-tracker',
      resolveId: (id) => (id === trackerModuleId ? `\0${trackerModuleId}` : undefined),
      load: (id) => (id === `\0${trackerModuleId}` ? trackerModuleText() : undefined),
    },
  ],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/cleanup.ts'],
    // Bounds for a hang, not for speed: on a loaded 2-core machine a test of a few seconds took 5-10 times as long
    // (a fresh-clone run of 925 s had tests of 12-30 s against a 30 s default). Files that need more set their own.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A fork runs file after file without reloading the app's modules: importing src/ (test/cleanup.ts imports the
    // harness) costs each fork about 1.5 s of CPU, about 5 of the suite's 17 CPU-minutes when every one of ~200
    // files had a fork of its own (2026-11-27, /proc/self/stat per file). Files share no state but module-level
    // caches, which key by database or thread (the ingest site cache was keyed by site id alone: now by database).
    isolate: false,
    // vitest runs one file fewer than the cores at a time: one on 2 cores. Most files spend much of their time waiting
    // (on a child server or CLI, chromium, clickhouse-server, a projector poll), so more files than cores fill those
    // waits: on 2 cores three at a time took the suite from 8 min 44 s to 8 min 17 s (2026-11-27, 189 files). The build
    // is locked (test/cli/cli-helpers.ts) and every file has its own temp directories and ports.
    maxWorkers: Math.max(3, availableParallelism()),
    sequence: { sequencer: BinaryFirst },
  },
});
