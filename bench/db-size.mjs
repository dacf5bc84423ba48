// Where a stored event's bytes go: every table and index of events.db and sightline.db (SQLite's dbstat virtual
// table: pages, payload and unused bytes per b-tree), free pages and WALs, each divided by the events stored. Read
// on a stopped server's data directory (read-only connections), so the WALs are already checkpointed away.
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeBundleOptions } from '../build/bundle-options.mjs';
import { root } from './harness.mjs';

/** src/db/raw-codec.ts bundled into dist/: events.raw reads through its SQL function (schema.sql version 30). */
async function rawCodec() {
  const outfile = join(root, 'dist', 'bench-raw-codec.mjs');
  await build({ entryPoints: [join(root, 'src', 'db', 'raw-codec.ts')], outfile, ...nodeBundleOptions });
  return import(pathToFileURL(outfile).href);
}

/**
 * The breakdown of `dataDir`: per file, its b-trees (largest first) with bytes, payload and unused bytes, and the
 * rows of the per-event tables, so a b-tree that holds fewer rows than events (the projector not caught up) shows.
 */
export async function databaseBreakdown(dataDir) {
  const log = new Database(join(dataDir, 'events.db'), { readonly: true, fileMustExist: true });
  const packed = log.pragma('table_xinfo(events)').some((column) => column.name === 'raw_packed');
  if (packed) (await rawCodec()).registerRawFunctions(log);
  const events = log.prepare('SELECT count(*) FROM events').pluck().get();
  const rawBytes = log.prepare('SELECT avg(length(CAST(raw AS BLOB))) FROM events').pluck().get() ?? 0;
  const packedBytes = packed ? (log.prepare('SELECT avg(length(raw_packed)) FROM events').pluck().get() ?? 0) : undefined;
  log.close();
  const files = [];
  for (const name of ['events.db', 'sightline.db']) {
    const path = join(dataDir, name);
    const db = new Database(path, { readonly: true, fileMustExist: true });
    const pageSize = db.pragma('page_size', { simple: true });
    const freePages = db.pragma('freelist_count', { simple: true });
    const trees = db
      .prepare('SELECT name, count(*) AS pages, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all();
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    for (const tree of trees) {
      if (!tables.has(tree.name)) continue;
      tree.rows = db.prepare(`SELECT count(*) FROM "${tree.name}"`).pluck().get();
    }
    const wal = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
    files.push({ name, bytes: statSync(path).size, wal, pageSize, freeBytes: freePages * pageSize, trees });
    db.close();
  }
  return { events, rawBytes, packedBytes, files };
}

/** Prints the breakdown, bytes per stored event; b-trees under 0.5 bytes per event are summed in one line. */
export function printBreakdown({ events, rawBytes, packedBytes, files }) {
  const perEvent = (bytes) => (bytes / events).toFixed(1).padStart(6);
  const total = files.reduce((sum, file) => sum + file.bytes + file.wal, 0);
  console.log(`Bytes per stored event, by file and b-tree (dbstat; ${events.toLocaleString('en')} events, ${perEvent(total).trim()} bytes each in all, of which the raw JSON text itself ${rawBytes.toFixed(1)}${packedBytes === undefined ? '' : `, stored packed in ${packedBytes.toFixed(1)}`}):`);
  for (const file of files) {
    console.log(`  ${file.name.padEnd(34)} ${perEvent(file.bytes)}  (page ${file.pageSize}; free pages ${perEvent(file.freeBytes).trim()}; WAL ${perEvent(file.wal).trim()})`);
    let small = 0;
    for (const tree of file.trees) {
      if (tree.bytes / events < 0.5) {
        small += tree.bytes;
        continue;
      }
      const rows = tree.rows === undefined ? '' : `, ${tree.rows.toLocaleString('en')} rows (${(tree.bytes / Math.max(tree.rows, 1)).toFixed(1)} bytes each)`;
      console.log(`    ${tree.name.padEnd(32)} ${perEvent(tree.bytes)}  payload ${perEvent(tree.payload).trim()}, unused ${perEvent(tree.unused).trim()}${rows}`);
    }
    console.log(`    ${'(every other b-tree)'.padEnd(32)} ${perEvent(small)}`);
  }
}
