// The esbuild options every Node bundle of Sightline shares (the server, the writer thread, benchmark workloads):
// one ESM file for Node 20, packages left to node_modules, schema.sql imported as text, the browser tracker as its
// minified text (build/tracker.mjs).
import { trackerEsbuildPlugin } from './tracker.mjs';

export const nodeBundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  loader: { '.sql': 'text', '.uibundle': 'text' },
  logLevel: 'warning',
  plugins: [trackerEsbuildPlugin],
};
