// Test runner configuration: schema.sql and the built admin UI are imported as text, and the browser tracker as its
// minified text, exactly as esbuild does for the bundle.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { trackerModuleId, trackerModuleText } from './build/tracker.mjs';

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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest runs one file fewer than the cores at a time: one on 2 cores. Most files spend much of their time waiting
    // (on a child server or CLI, chromium, a projector poll), so two at a time fill those waits; the build is locked
    // (test/cli/cli-helpers.ts) and every file has its own temp directories and ports.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
