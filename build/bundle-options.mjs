// The esbuild options every Node bundle of Sightline shares (the server, the writer thread, benchmark workloads):
// one ESM file for Node 20 with its packages inside (but better-sqlite3, a native addon), schema.sql imported as text,
// the browser tracker as its minified text (build/tracker.mjs).
// Packages inside: Node resolves and compiles one file instead of some 150 modules of node_modules, which took a CLI
// call from about 0.70 to 0.45 s of CPU (`site list`, 2026-11-27) and each worker thread's start likewise. The CommonJS
// packages inside call require() for Node's built-in modules: the banner gives the ESM bundle one.
import { trackerEsbuildPlugin } from './tracker.mjs';

export const nodeBundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  banner: { js: "import { createRequire as createRequireForPackages } from 'node:module'; const require = createRequireForPackages(import.meta.url);" },
  loader: { '.sql': 'text', '.uibundle': 'text' },
  logLevel: 'warning',
  plugins: [trackerEsbuildPlugin],
};
