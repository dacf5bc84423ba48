// What the single executable (dist/sightline, a Node single-executable application) carries besides its code: the
// better-sqlite3 addon, the worker threads' bundles, the country database, later the admin UI and the tracker
// (build/binary-assets.mjs lists them). Outside the executable every function here answers undefined and the
// callers use node_modules and dist/ as before.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type SeaModule = typeof import('node:sea');

let sea: SeaModule | null | undefined;

/** node:sea when this process is the single executable; undefined under a plain `node` (getBuiltinModule: Node ≥ 20.16). */
function seaModule(): SeaModule | undefined {
  if (sea === undefined) {
    const found = process.getBuiltinModule?.('node:sea') as SeaModule | undefined;
    sea = found?.isSea() ? found : null;
  }
  return sea ?? undefined;
}

/** True inside dist/sightline. */
export function isSingleExecutable(): boolean {
  return seaModule() !== undefined;
}

/**
 * The bytes of an embedded asset (build/binary-assets.mjs names them), without a copy; undefined outside the
 * executable or when the build did not embed it (an optional asset whose source did not exist).
 * @example embeddedAsset('geo-country.mmdb') // Buffer of the .mmdb inside dist/sightline
 */
export function embeddedAsset(name: string): Buffer | undefined {
  const found = seaModule();
  if (!found) return undefined;
  try {
    const bytes = found.getRawAsset(name);
    return typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A directory only this user can use: $TMPDIR/sightline-<uid>, mode 0700. Anything else found there (a symlink,
 * another owner, group or other permissions) is refused: a file loaded from it runs as this process.
 */
function privateDirectory(): string {
  const uid = process.getuid?.() ?? 0;
  const directory = join(tmpdir(), `sightline-${uid}`);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = lstatSync(directory);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    throw new Error(`${directory} must be a directory owned by this user with mode 0700 (remove it, or set TMPDIR to another directory)`);
  }
  return directory;
}

const writtenFiles = new Map<string, string>();

/**
 * Writes an embedded asset to the private directory under a name holding its SHA-256 (once per content: a second
 * process or an upgrade finds its own file) and answers the path. A file already there is read back and compared,
 * never trusted by its name.
 * @example embeddedFile('worker/projector-thread.cjs') // '/tmp/sightline-0/3f1c…-projector-thread.cjs'
 */
export function embeddedFile(name: string): string | undefined {
  const known = writtenFiles.get(name);
  if (known) return known;
  const bytes = embeddedAsset(name);
  if (!bytes) return undefined;
  const digest = createHash('sha256').update(bytes).digest('hex');
  const path = join(privateDirectory(), `${digest.slice(0, 32)}-${name.replace(/^.*\//, '')}`);
  if (!holdsBytes(path, digest)) {
    // Written beside, then renamed: a concurrent start never loads a half-written file.
    const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
    writeFileSync(partial, bytes, { mode: 0o600, flag: 'wx' });
    renameSync(partial, path);
  }
  writtenFiles.set(name, path);
  return path;
}

function holdsBytes(path: string, digest: string): boolean {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.uid !== (process.getuid?.() ?? 0)) return false;
    return createHash('sha256').update(readFileSync(path)).digest('hex') === digest;
  } catch {
    return false;
  }
}

let addon: object | null | undefined;

/**
 * The embedded better-sqlite3 addon (compiled for the executable's Node), loaded once per thread with
 * process.dlopen: inside the executable `require` loads built-in modules only. Passed to better-sqlite3 as its
 * `nativeBinding`; undefined outside the executable (better-sqlite3 finds its own build).
 */
export function embeddedSqliteAddon(): object | undefined {
  if (addon === undefined) {
    const path = embeddedFile('better_sqlite3.node');
    if (path) {
      const module = { exports: {} as object };
      process.dlopen(module, path);
      addon = module.exports;
    } else {
      addon = null;
    }
  }
  return addon ?? undefined;
}
