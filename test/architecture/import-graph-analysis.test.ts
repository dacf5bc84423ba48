// The import-graph check itself (build/import-graph.mjs), on small source trees written to a temp dir: it finds each
// kind of broken rule, passes a tree that keeps them all, and reads every way of importing (so it cannot pass by
// missing an import).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AllowedArrow, analyseImports, formatReport, importSpecifiersOf, type Layer } from '../../build/import-graph.mjs';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Writes a source tree ({ path: text }) to a fresh temp dir and returns the dir. */
function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'sightline-import-graph-'));
  directories.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const layerTable: Layer[] = [
  { name: 'foundation', why: 'plumbing', entries: ['clock.ts', 'http/'] },
  { name: 'storage', why: 'tables', entries: ['store/'] },
  { name: 'domains', why: 'features', entries: ['shop/', 'billing/'] },
  { name: 'composition', why: 'assembly', entries: ['app.ts'] },
];

/** A tree that keeps every rule: each file imports only its own layer or lower ones. */
const cleanTree: Record<string, string> = {
  'clock.ts': 'export const now = () => 0;\n',
  'http/routes.ts': "import { now } from '../clock.ts';\nexport const route = now;\n",
  'store/rows.ts': "import type { route } from '../http/routes.ts';\nexport const rows: typeof route[] = [];\n",
  'shop/cart.ts': "import { rows } from '../store/rows.ts';\nexport const cart = rows;\n",
  'billing/invoice.ts': "import { cart } from '../shop/cart.ts';\nexport const invoice = cart;\n",
  'app.ts': "import { invoice } from './billing/invoice.ts';\nimport { route } from './http/routes.ts';\nexport { invoice, route };\n",
};

/** The clean tree plus one import of each forbidden kind. */
const brokenTree: Record<string, string> = {
  ...cleanTree,
  // A circle inside one folder: shop/a.ts → shop/b.ts → shop/a.ts.
  'shop/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
  'shop/b.ts': "import type { a } from './a.ts';\nexport const b: typeof a | undefined = undefined;\n",
  // A folder pair: billing/ imports shop/ (above), and shop/ imports billing/.
  'shop/refund.ts': "export const refund = async () => (await import('../billing/invoice.ts')).invoice;\n",
  // Storage importing a domain: upward (billing/ imports nothing of store/, so this is no pair).
  'store/totals.ts': "export { invoice } from '../billing/invoice.ts';\n",
  // http/ importing a domain: upward too, and never allowed.
  'http/auth.ts': "import '../shop/cart.ts';\n",
};

describe('analyseImports on a source tree in a temp dir', () => {
  it('passes a tree that keeps every rule', () => {
    const analysis = analyseImports({ root: writeTree(cleanTree), layerTable, allowed: [] });
    expect(formatReport(analysis)).toContain('All rules kept.');
    expect(analysis).toMatchObject({ passes: true, fileCount: 6, importCount: 6, tableProblems: [], circles: [], folderPairs: [], httpToDomain: [], upward: [] });
  });

  it('finds a circle, a folder pair, http/ importing a domain and upward imports', () => {
    const analysis = analyseImports({ root: writeTree(brokenTree), layerTable, allowed: [] });
    expect(analysis.passes).toBe(false);
    expect(analysis.tableProblems).toEqual([]);
    expect(analysis.circles).toEqual([['shop/a.ts', 'shop/b.ts', 'shop/a.ts']]);
    expect(analysis.folderPairs).toEqual([
      {
        folders: ['billing/', 'shop/'],
        forth: [{ from: 'billing/invoice.ts', to: 'shop/cart.ts' }],
        back: [{ from: 'shop/refund.ts', to: 'billing/invoice.ts' }],
      },
    ]);
    expect(analysis.httpToDomain).toEqual([{ from: 'http/auth.ts', to: 'shop/cart.ts', toLayer: 'domains' }]);
    expect(analysis.upward).toEqual([
      { from: 'http/auth.ts', to: 'shop/cart.ts', fromLayer: 'foundation', toLayer: 'domains' },
      { from: 'store/totals.ts', to: 'billing/invoice.ts', fromLayer: 'storage', toLayer: 'domains' },
    ]);
    const report = formatReport(analysis);
    expect(report).toContain('shop/a.ts → shop/b.ts → shop/a.ts');
    expect(report).toContain('billing/ ⇄ shop/: billing/ → shop/ 1, shop/ → billing/ 1; billing/ → shop/:\n    billing/invoice.ts → shop/cart.ts');
    expect(report).toContain('storage → domains: store/totals.ts → billing/invoice.ts');
    expect(report).toContain('Rules broken');
  });

  it('excuses an upward import on the allow-list, but never http/ importing a domain', () => {
    const allowed: AllowedArrow[] = [
      { from: 'store/totals.ts', to: 'billing/invoice.ts', why: 'a test of the allow-list' },
      { from: 'http/auth.ts', to: 'shop/cart.ts', why: 'a test: http/ importing a domain stays refused' },
    ];
    const analysis = analyseImports({ root: writeTree(brokenTree), layerTable, allowed });
    expect(analysis.upward).toEqual([]);
    expect(analysis.allowedUpward.map(({ from }) => from)).toEqual(['http/auth.ts', 'store/totals.ts']);
    expect(analysis.httpToDomain).toEqual([{ from: 'http/auth.ts', to: 'shop/cart.ts', toLayer: 'domains' }]);
    expect(analysis.passes).toBe(false);
  });

  it('refuses an allow-list that is too long, says no why, or names an import that does not point up', () => {
    const root = writeTree(cleanTree);
    const arrow = { from: 'store/rows.ts', to: 'http/routes.ts' }; // exists, but points down
    const tooLong = analyseImports({ root, layerTable, allowed: [{ ...arrow, why: 'one' }, { ...arrow, why: 'two' }], allowedLimit: 1 });
    expect(tooLong.tableProblems).toContain('allow-list: 2 upward imports allowed, at most 1: point them down instead');
    const unexplained = analyseImports({ root, layerTable, allowed: [{ ...arrow, why: ' ' }] });
    expect(unexplained.tableProblems).toEqual([
      'allow-list: store/rows.ts → http/routes.ts says no why',
      'allow-list: store/rows.ts → http/routes.ts is no upward import of src/ (any more): remove it',
    ]);
    expect(unexplained.passes).toBe(false);
  });

  it('refuses a folder missing from the layer table, an entry that covers nothing and an import of no file', () => {
    const root = writeTree({ ...cleanTree, 'reports/summary.ts': "import { x } from '../store/missing.ts';\nexport const y = x;\n" });
    const analysis = analyseImports({ root, layerTable: [...layerTable, { name: 'extra', why: 'stale', entries: ['gone/'] }], allowed: [] });
    expect(analysis.tableProblems).toEqual([
      'layer table: "gone/" covers no file of src/ (remove it, or fix its name)',
      'reports/summary.ts is in no layer: add it (or its folder, "reports/") to the layer table in build/import-graph.mjs',
      'reports/summary.ts imports "../store/missing.ts", which is no file of src/',
    ]);
    expect(analysis.passes).toBe(false);
  });

  it('refuses a table without a domains layer (the http/ rule would check nothing)', () => {
    const renamed = layerTable.map((layer) => (layer.name === 'domains' ? { ...layer, name: 'features' } : layer));
    const analysis = analyseImports({ root: writeTree(cleanTree), layerTable: renamed, allowed: [] });
    expect(analysis.tableProblems).toEqual(['layer table: no layer is named "domains" (the rule that http/ imports no domain reads it)']);
    expect(analysis.passes).toBe(false);
  });

  it('places a file by the longest entry that covers it', () => {
    const table: Layer[] = [
      { name: 'foundation', why: '', entries: ['store/types.ts'] },
      { name: 'storage', why: '', entries: ['store/'] },
    ];
    const root = writeTree({ 'store/types.ts': "import { rows } from './rows.ts';\nexport type Row = typeof rows;\n", 'store/rows.ts': 'export const rows = [];\n' });
    expect(analyseImports({ root, layerTable: table, allowed: [] }).upward).toEqual([
      { from: 'store/types.ts', to: 'store/rows.ts', fromLayer: 'foundation', toLayer: 'storage' },
    ]);
  });
});

describe('importSpecifiersOf', () => {
  const cases: { name: string; text: string; specifiers: string[] }[] = [
    { name: 'a static import', text: "import { a } from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'a default and named import over lines', text: "import a, {\n  b,\n  type C,\n} from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'a type-only import', text: "import type { A } from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'a namespace import', text: "import * as a from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'an import for its effect', text: "import './a.ts';", specifiers: ['./a.ts'] },
    { name: 'an export from', text: "export { a } from './a.ts';\nexport * from './b.ts';\nexport * as c from './c.ts';", specifiers: ['./a.ts', './b.ts', './c.ts'] },
    { name: 'a type-only export from', text: "export type { A } from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'a dynamic import', text: "const a = await import('./a.ts');", specifiers: ['./a.ts'] },
    { name: "a type's import()", text: "type A = typeof import('./a.ts');\nlet b: import('./b.ts').B;", specifiers: ['./a.ts', './b.ts'] },
    { name: 'a named import called from', text: "import { from } from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'a local export (no module)', text: "const a = 1;\nexport { a };\nexport type B = string;\nexport const c = 'x';", specifiers: [] },
    { name: 'import.meta', text: "const here = import.meta.url; import { a } from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'imports inside comments', text: "// import { a } from './a.ts';\n/* import b from './b.ts'; */\n/** @example import('./c.ts') */", specifiers: [] },
    { name: 'imports inside strings and templates', text: "const s = \"import x from './a.ts'\";\nconst t = `import y from './b.ts' ${1 + 1} export * from './c.ts'`;", specifiers: [] },
    { name: 'code inside a template substitution', text: "const t = `${await import('./a.ts')} and ${`${{ a: 1 }.a}`}`;\nimport b from './b.ts';", specifiers: ['./a.ts', './b.ts'] },
    { name: 'a regular expression with a quote and a slash-star', text: "const r = /'\\/*[/']/g;\nimport a from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'a division is not a regular expression', text: "const half = (a) / 2; const third = b / 3;\nimport a from './a.ts';", specifiers: ['./a.ts'] },
    { name: 'packages are read too (the analysis keeps the relative ones)', text: "import { h } from 'preact';\nimport fs from 'node:fs';", specifiers: ['preact', 'node:fs'] },
  ];
  it.each(cases)('reads $name', ({ text, specifiers }) => {
    expect(importSpecifiersOf(text)).toEqual(specifiers);
  });
});
