#!/usr/bin/env node
// The import graph of src/ and the four rules it must keep (issue 25): no circle of files, no two folders that import
// each other, http/ importing no domain, and no import pointing up the layer table below. `node build/import-graph.mjs`
// prints the report; with --check it also exits 1 when a rule is broken (npm run check:imports; CI). The test
// test/architecture/import-graph.test.ts runs the same analysis. Every relative import counts: static, type-only
// (a type still couples two modules) and dynamic import().
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layers, lowest first. A file may import from its own layer and the layers below it, never from one above.
 * An entry names a folder of src/ ("db/"), a file ("clock.ts"), or a folder or file further down
 * ("metrics/registry.ts"); the longest entry that covers a file decides its layer. Every file must be covered: a new folder fails the check
 * until it is added here, and an entry that covers nothing fails it too (remove it).
 */
export const layers = [
  {
    name: 'foundation',
    why: 'plumbing that knows no domain: time, configuration, the database, HTTP routing and errors, money, secrets',
    entries: [
      'clock.ts', 'config.ts', 'version.ts',
      'db/', 'binary/', 'http/', 'money/', 'secrets/',
      // The metric types and the app's counters; metrics/ itself (GET /metrics) is a domain.
      'metrics/registry.ts', 'metrics/app-metrics.ts',
    ],
  },
  {
    name: 'vocabulary',
    why: 'the neutral words storage and domains share (periods, dimensions, filters, the visit rule) and the rollups\' binary formats',
    entries: ['vocabulary/', 'rollup-format/'],
  },
  {
    name: 'tenancy',
    why:
      'who owns what and who may see it: the workspaces, sites and API keys tables (tenants/), the caller vocabulary and the one ' +
      'access resolver, which looks credentials up through functions the app hands in (access/), and the context every action gets',
    entries: ['tenants/', 'access/', 'context.ts'],
  },
  {
    name: 'storage',
    why: 'the owners of shared tables: the event log, the projector (sole writer of derived data), the audit log, salts, and the ClickHouse store the shipper fills',
    entries: ['event-store/', 'projector/', 'audit/', 'visitors/', 'clickhouse/'],
  },
  {
    name: 'read model',
    why: 'the one module that answers analytical questions over stored events and derived data (src/read-model/)',
    entries: ['read-model/'],
  },
  {
    name: 'domains',
    why: 'one folder per domain: its routes, actions and queries (admin/: the routes and actions over tenants/)',
    entries: [
      'admin/', 'analysis/', 'annotations/', 'attribution/', 'behaviour/', 'consent/', 'dlq/', 'events/', 'exports/', 'gdpr/', 'goals/', 'health/',
      'imports/', 'ingest/', 'integrations/', 'metrics/', 'openapi/', 'people/', 'plan/', 'reading/', 'reports/', 'retention/', 'segments/',
      'sourcemaps/', 'spend/', 'tracker/', 'ui/', 'users/', 'webhooks/', 'mail/', 'email-reports/', 'alerts/',
    ],
  },
  {
    name: 'composition',
    why: 'what assembles the domains into a server, its worker threads\' entries and a CLI',
    entries: ['app.ts', 'server.ts', 'main.ts', 'cli/', 'projector-thread.ts', 'batch-subscribers.ts', 'analysis-thread.ts', 'analysis-jobs.ts'],
  },
];

/**
 * Upward imports allowed anyway: at most `maxAllowedUpward`, each a file-to-file import (paths under src/) with the
 * reason it cannot point down. An entry whose import no longer exists, or no longer points up, fails the check.
 * @example { from: 'projector/some-step.ts', to: 'admin/some-action.ts', why: 'what keeps it from pointing down, …' }
 */
export const allowedUpward = [];

/** Issue 25's bound: an upward import is an exception to justify, not a way to file one. */
export const maxAllowedUpward = 2;

/** The HTTP plumbing folder, which must import no domain (not even through the allow-list). */
const plumbing = 'http/';
/** The layer whose folders are the domains. */
const domainLayer = 'domains';

const sourceRoot = fileURLToPath(new URL('../src/', import.meta.url));

/** The .ts files under `root` (declaration files aside), as sorted paths relative to it with "/" separators. */
export function listSourceFiles(root) {
  const files = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return files.sort();
}

// ── Reading the imports of a file ──────────────────────────────────────────────────────────────────────────────────

const keywordsBeforeExpression = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

/**
 * The tokens of a TypeScript text that can make an import: words, strings and punctuation marks. Comments, the text
 * of template literals and regular expressions are skipped, so an import written inside them is not one.
 */
function tokensOf(text) {
  const tokens = [];
  // One item per open "{" (false) or template "${" (true): the "}" closing a "${" goes back to template text.
  const braces = [];
  let at = 0;

  const skipTemplateText = () => {
    while (at < text.length) {
      const char = text[at];
      if (char === '\\') at += 2;
      else if (char === '`') return void at++;
      else if (char === '$' && text[at + 1] === '{') {
        braces.push(true);
        return void (at += 2);
      } else at++;
    }
  };
  const regularExpressionMayStart = () => {
    const last = tokens.at(-1);
    if (!last) return true;
    if (last.kind === 'punctuation') return !')]}'.includes(last.value);
    return last.kind === 'word' && keywordsBeforeExpression.has(last.value);
  };
  const skipRegularExpression = () => {
    let inClass = false;
    for (at++; at < text.length && text[at] !== '\n'; at++) {
      const char = text[at];
      if (char === '\\') at++;
      else if (char === '[') inClass = true;
      else if (char === ']') inClass = false;
      else if (char === '/' && !inClass) break;
    }
    at++;
    while (/[a-z]/i.test(text[at] ?? '')) at++;
  };

  while (at < text.length) {
    const char = text[at];
    const next = text[at + 1];
    if (/\s/.test(char)) at++;
    else if (char === '/' && next === '/') at = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
    else if (char === '/' && next === '*') at = text.indexOf('*/', at + 2) === -1 ? text.length : text.indexOf('*/', at + 2) + 2;
    else if (char === '/' && regularExpressionMayStart()) skipRegularExpression();
    else if (char === "'" || char === '"') {
      let end = at + 1;
      while (end < text.length && text[end] !== char && text[end] !== '\n') end += text[end] === '\\' ? 2 : 1;
      tokens.push({ kind: 'string', value: text.slice(at + 1, end) });
      at = end + 1;
    } else if (char === '`') {
      at++;
      skipTemplateText();
      tokens.push({ kind: 'template', value: '`' });
    } else if (/[\w$]/.test(char) || char > '\u007f') {
      const word = /^[\w$\u0080-\uffff]+/.exec(text.slice(at, at + 200))[0];
      tokens.push({ kind: /^\d/.test(word) ? 'number' : 'word', value: word });
      at += word.length;
    } else {
      at++;
      if (char === '{') braces.push(false);
      if (char === '}' && braces.pop()) {
        skipTemplateText();
        continue;
      }
      tokens.push({ kind: 'punctuation', value: char });
    }
  }
  return tokens;
}

/** The module named by `… from '<specifier>'` in the statement starting at `start`, if it has one. */
function fromClauseAt(tokens, start) {
  for (let index = start; index < tokens.length; index++) {
    const token = tokens[index];
    if (token.kind === 'punctuation' && token.value === ';') return undefined;
    if (token.kind === 'word' && (token.value === 'import' || token.value === 'export')) return undefined;
    if (token.kind === 'word' && token.value === 'from' && tokens[index + 1]?.kind === 'string') return tokens[index + 1].value;
  }
  return undefined;
}

/**
 * Every module a TypeScript text imports or re-exports from: `import … from 'x'`, `import 'x'`, `import type …`,
 * `export … from 'x'`, `import('x')` (dynamic, or a type's `typeof import('x')`).
 * @example importSpecifiersOf("import type { A } from './a.ts'; const b = await import('./b.ts');") // ['./a.ts', './b.ts']
 */
export function importSpecifiersOf(text) {
  const tokens = tokensOf(text);
  const specifiers = [];
  tokens.forEach((token, index) => {
    // `x.import` and `x.export` are property names, not keywords.
    if (token.kind !== 'word' || tokens[index - 1]?.value === '.') return;
    const next = tokens[index + 1];
    let specifier;
    if (token.value === 'import') {
      if (next?.value === '(') specifier = tokens[index + 2]?.kind === 'string' ? tokens[index + 2].value : undefined;
      else if (next?.kind === 'string') specifier = next.value;
      else if (next?.value !== '.') specifier = fromClauseAt(tokens, index + 1); // not import.meta
    } else if (token.value === 'export') {
      const afterType = next?.value === 'type' ? tokens[index + 2] : next;
      if (afterType?.value === '*' || afterType?.value === '{') specifier = fromClauseAt(tokens, index + 1);
    }
    if (specifier !== undefined) specifiers.push(specifier);
  });
  return specifiers;
}

/**
 * The file of src/ a relative specifier names: 'file' (a source file), 'outside' (outside the root, or a non-code
 * asset such as schema.sql: not part of the graph) or 'unresolved' (code that does not exist: a typo would hide an
 * import, so it is reported).
 */
function resolveSpecifier(fromFile, specifier, fileSet) {
  const target = posix.normalize(posix.join(posix.dirname(fromFile), specifier));
  if (target.startsWith('../')) return { kind: 'outside' };
  if (fileSet.has(target)) return { kind: 'file', file: target };
  const asTypeScript = target.replace(/\.m?js$/, '.ts');
  if (fileSet.has(asTypeScript)) return { kind: 'file', file: asTypeScript };
  return /\.[mc]?[jt]sx?$/.test(target) || !/\.\w+$/.test(target) ? { kind: 'unresolved' } : { kind: 'outside' };
}

/** Each file's imports of other files of the root (file → set of files), and the relative imports that name no file. */
export function readImports(root, files) {
  const fileSet = new Set(files);
  const imports = new Map();
  const unresolved = [];
  for (const file of files) {
    const targets = new Set();
    for (const specifier of importSpecifiersOf(readFileSync(join(root, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue; // a package, node:…, virtual:…
      const resolved = resolveSpecifier(file, specifier, fileSet);
      if (resolved.kind === 'file') targets.add(resolved.file);
      if (resolved.kind === 'unresolved') unresolved.push({ from: file, specifier });
    }
    imports.set(file, targets);
  }
  return { imports, unresolved };
}

// ── The layer table ────────────────────────────────────────────────────────────────────────────────────────────────

/** Where each file sits in the table: file → { entry, layer, rank }; plus the table's own faults. */
export function placeFiles(files, layerTable) {
  const problems = [];
  const entries = new Map(); // entry → { layer, rank }
  layerTable.forEach((layer, rank) => {
    for (const entry of layer.entries) {
      if (!/^([\w.-]+\/)*([\w.-]+\/|[\w.-]+\.ts)$/.test(entry)) problems.push(`layer table: "${entry}" (${layer.name}) is neither a folder ("name/") nor a .ts file`);
      else if (entries.has(entry)) problems.push(`layer table: "${entry}" is in both ${entries.get(entry).layer} and ${layer.name}`);
      else entries.set(entry, { layer: layer.name, rank });
    }
  });
  const covers = (entry, file) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);
  const places = new Map();
  const unplaced = [];
  const used = new Set();
  for (const file of files) {
    const entry = [...entries.keys()].filter((candidate) => covers(candidate, file)).sort((a, b) => b.length - a.length)[0];
    if (entry === undefined) unplaced.push(file);
    else {
      used.add(entry);
      places.set(file, { entry, ...entries.get(entry) });
    }
  }
  for (const entry of entries.keys()) {
    if (!used.has(entry)) problems.push(`layer table: "${entry}" covers no file of src/ (remove it, or fix its name)`);
  }
  for (const file of unplaced) problems.push(`${file} is in no layer: add it (or its folder, "${folderOf(file)}") to the layer table in build/import-graph.mjs`);
  return { places, problems };
}

// ── The four rules ─────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Circles of files (Tarjan's strongly connected components), each as one closed path through its component:
 * [a, b, c, a]. A component of more files holds more circles; breaking the one shown may leave another, reported then.
 */
export function findCircles(imports) {
  const order = new Map();
  const lowest = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let counter = 0;
  const visit = (file) => {
    order.set(file, counter);
    lowest.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file), lowest.get(target)));
      } else if (onStack.has(target)) lowest.set(file, Math.min(lowest.get(file), order.get(target)));
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || imports.get(file)?.has(file)) components.push(component);
  };
  for (const file of [...imports.keys()].sort()) if (!order.has(file)) visit(file);
  return components.map((component) => shortestCircleThrough(component.sort()[0], new Set(component), imports));
}

/** The shortest path from `start` back to itself inside `component` (breadth first). */
function shortestCircleThrough(start, component, imports) {
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const target of [...(imports.get(file) ?? [])].sort()) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]));
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** The folder of src/ a file belongs to ("admin/"); a file at the top of src/ is its own unit ("app.ts"). */
export function folderOf(file) {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash + 1);
}

/** Every import as { from, to }, sorted. */
function arrowsOf(imports) {
  const arrows = [];
  for (const [from, targets] of imports) for (const to of targets) arrows.push({ from, to });
  return arrows.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Pairs of folders that import each other: { folders: [a, b], forth: a's imports of b, back: b's imports of a }. */
export function findFolderPairs(arrows) {
  const between = new Map(); // "a/ → b/" → the imports from a/ of b/
  for (const arrow of arrows) {
    const [from, to] = [folderOf(arrow.from), folderOf(arrow.to)];
    if (from === to) continue;
    const key = `${from} → ${to}`;
    if (!between.has(key)) between.set(key, []);
    between.get(key).push(arrow);
  }
  const pairs = [];
  for (const [key, forth] of between) {
    const [a, b] = key.split(' → ');
    const back = between.get(`${b} → ${a}`);
    if (a < b && back) pairs.push({ folders: [a, b], forth, back });
  }
  return pairs.sort((x, y) => x.folders.join().localeCompare(y.folders.join()));
}

const sameArrow = (a, b) => a.from === b.from && a.to === b.to;

/**
 * The whole analysis of the source tree at `root` (default: this repository's src/) against a layer table and an
 * allow-list of upward imports (default: the ones at the top of this file). `passes` is false when any rule is broken.
 * @example const analysis = analyseImports(); if (!analysis.passes) console.log(formatReport(analysis));
 */
export function analyseImports({ root = sourceRoot, layerTable = layers, allowed = allowedUpward, allowedLimit = maxAllowedUpward } = {}) {
  const files = listSourceFiles(root);
  const { imports, unresolved } = readImports(root, files);
  const arrows = arrowsOf(imports);
  const { places, problems: tableProblems } = placeFiles(files, layerTable);
  const layerOf = (file) => places.get(file)?.layer;
  const rankOf = (file) => places.get(file)?.rank ?? -1;

  const upwardAll = arrows
    .filter((arrow) => places.has(arrow.from) && places.has(arrow.to) && rankOf(arrow.from) < rankOf(arrow.to))
    .map((arrow) => ({ ...arrow, fromLayer: layerOf(arrow.from), toLayer: layerOf(arrow.to) }));
  const isAllowed = (arrow) => allowed.some((entry) => sameArrow(entry, arrow));
  const ruleProblems = [];
  if (allowed.length > allowedLimit) ruleProblems.push(`allow-list: ${allowed.length} upward imports allowed, at most ${allowedLimit}: point them down instead`);
  for (const entry of allowed) {
    if (!entry.why?.trim()) ruleProblems.push(`allow-list: ${entry.from} → ${entry.to} says no why`);
    if (!upwardAll.some((arrow) => sameArrow(arrow, entry))) ruleProblems.push(`allow-list: ${entry.from} → ${entry.to} is no upward import of src/ (any more): remove it`);
  }

  const domains = layerTable.find((layer) => layer.name === domainLayer);
  if (!domains) ruleProblems.push(`layer table: no layer is named "${domainLayer}" (the rule that ${plumbing} imports no domain reads it)`);
  const domainFolders = new Set(domains?.entries ?? []);
  const httpToDomain = arrows
    .filter((arrow) => arrow.from.startsWith(plumbing) && domainFolders.has(places.get(arrow.to)?.entry))
    .map((arrow) => ({ ...arrow, toLayer: layerOf(arrow.to) }));

  const analysis = {
    fileCount: files.length,
    importCount: arrows.length,
    tableProblems: [...tableProblems, ...ruleProblems, ...unresolved.map(({ from, specifier }) => `${from} imports "${specifier}", which is no file of src/`)],
    circles: findCircles(imports),
    folderPairs: findFolderPairs(arrows),
    httpToDomain,
    upward: upwardAll.filter((arrow) => !isAllowed(arrow)),
    allowedUpward: upwardAll.filter(isAllowed),
  };
  analysis.passes = ['tableProblems', 'circles', 'folderPairs', 'httpToDomain', 'upward'].every((rule) => analysis[rule].length === 0);
  return analysis;
}

// ── The report ─────────────────────────────────────────────────────────────────────────────────────────────────────

const indent = (lines) => lines.map((line) => `  ${line}`);

export function describeCircles(circles) {
  return [`File circles: ${circles.length}`, ...indent(circles.map((circle) => circle.join(' → ')))];
}

/** Each pair with the imports of its lighter direction, usually the ones to move, and the count of the other. */
export function describeFolderPairs(pairs) {
  const lines = [`Folder pairs that import each other: ${pairs.length}`];
  for (const { folders, forth, back } of pairs) {
    const [lighter, heavier] = forth.length <= back.length ? [forth, back] : [back, forth];
    const [from, to] = [folderOf(lighter[0].from), folderOf(lighter[0].to)];
    lines.push(`  ${folders[0]} ⇄ ${folders[1]}: ${from} → ${to} ${lighter.length}, ${to} → ${from} ${heavier.length}; ${from} → ${to}:`);
    lines.push(...indent(indent(lighter.map((arrow) => `${arrow.from} → ${arrow.to}`))));
  }
  return lines;
}

export function describeHttpToDomain(arrows) {
  return [`${plumbing} importing a domain (never allowed): ${arrows.length}`, ...indent(arrows.map((arrow) => `${arrow.from} → ${arrow.to}`))];
}

export function describeUpward(arrows, title = 'Upward imports (a lower layer importing a higher one)') {
  return [`${title}: ${arrows.length}`, ...indent(arrows.map((arrow) => `${arrow.fromLayer} → ${arrow.toLayer}: ${arrow.from} → ${arrow.to}`))];
}

export function describeTableProblems(problems) {
  return [`Layer table, allow-list and unresolved imports: ${problems.length} problems`, ...indent(problems)];
}

/** The whole report, as printed by the command. */
export function formatReport(analysis) {
  const sections = [
    [`Import graph of src/: ${analysis.fileCount} files, ${analysis.importCount} imports between them (type-only and dynamic included)`],
    describeTableProblems(analysis.tableProblems),
    describeCircles(analysis.circles),
    describeFolderPairs(analysis.folderPairs),
    describeHttpToDomain(analysis.httpToDomain),
    describeUpward(analysis.upward),
    describeUpward(analysis.allowedUpward, 'Upward imports on the allow-list'),
    [analysis.passes ? 'All rules kept.' : 'Rules broken: see above.'],
  ];
  return sections.map((lines) => lines.join('\n')).join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const analysis = analyseImports();
  console.log(formatReport(analysis));
  if (process.argv.includes('--check') && !analysis.passes) process.exitCode = 1;
}
