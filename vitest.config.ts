// Test runner configuration: schema.sql and the built admin UI are imported as text, and the browser tracker as its
// minified text, exactly as esbuild does for the bundle.
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
  },
});
