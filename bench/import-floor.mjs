// The floor of an import on this machine: the simplest program that does what `sightline import` must do at the
// least, measured on the same file in the same run (bench/import.mjs runs it as a child process and prints it beside
// the import). Per row: parse it (JSON.parse for GA4 NDJSON, csv-parse's stream for the CSVs), take its time, type,
// visitor and path, derive a deterministic id (UUID v5: SHA-1 of the source's row), and store it durably in a
// WAL-mode SQLite file with a unique index on the id, 5,000 rows per commit (what makes a re-import a no-op); then the
// smallest projection worth the name: pageviews per day and path, and exact visitors per day, kept in memory and
// written once at the end. No enrichment, no wire-schema check, no visits, no rollup shards, no sort: whatever
// Sightline does beyond this is the distance, this is the floor.
//   node bench/import-floor.mjs umami-csv|goatcounter-csv|ga4-bigquery FILE
// prints one JSON line: { rows, stored_s, projected_s, cpu_s, rss_mib }.
import Database from 'better-sqlite3';
import { parse } from 'csv-parse';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dayMs = 86_400_000;
const namespace = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');

function uuidV5(name) {
  const hash = createHash('sha1').update(namespace).update(name).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The rows of the file as { ts, type, visitor, path, raw }. */
async function* rowsOf(format, file) {
  if (format === 'ga4-bigquery') {
    for await (const line of createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
      if (line === '') continue;
      const row = JSON.parse(line);
      const location = row.event_params.find((param) => param.key === 'page_location')?.value.string_value ?? '';
      const pathStart = location.indexOf('/', location.indexOf('//') + 2);
      yield { ts: Math.floor(Number(row.event_timestamp) / 1000), type: row.event_name === 'page_view' ? 'pageview' : row.event_name, visitor: row.user_pseudo_id, path: pathStart < 0 ? '/' : location.slice(pathStart), raw: line };
    }
    return;
  }
  const umami = format === 'umami-csv';
  const parser = createReadStream(file, { highWaterMark: 1 << 20 }).pipe(parse({ columns: true, relax_column_count: false }));
  for await (const row of parser) {
    if (umami) yield { ts: Date.parse(`${row.created_at.replace(' ', 'T')}Z`), type: row.event_type === '1' ? 'pageview' : row.event_name, visitor: row.session_id, path: row.url_path, raw: row.event_id };
    else yield { ts: Date.parse(row.Date), type: row.Event === 'true' ? row['2Path'] : 'pageview', visitor: row.Session, path: row['2Path'], raw: `${row.Session},${row.Date},${row['2Path']}` };
  }
}

async function main() {
  const [format, file] = process.argv.slice(2);
  const dir = mkdtempSync(join(tmpdir(), 'sightline-import-floor-'));
  const db = new Database(join(dir, 'floor.db'));
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // A generous page cache (64 MiB, 8 times what `sightline import` gives each file): the unique index of 10 million
    // random ids does not fit any small cache, and a floor must not be slowed by what it was given.
    db.pragma('cache_size = -65536');
    db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, site_id TEXT NOT NULL, ts INTEGER NOT NULL,
      type TEXT NOT NULL, anon_id TEXT NOT NULL, path TEXT NOT NULL, raw TEXT NOT NULL);
      CREATE UNIQUE INDEX events_by_id ON events (site_id, id);
      CREATE TABLE pageviews_by_day (day INTEGER, path TEXT, pageviews INTEGER, PRIMARY KEY (day, path)) WITHOUT ROWID;
      CREATE TABLE visitors_by_day (day INTEGER PRIMARY KEY, visitors INTEGER)`);
    const insert = db.prepare('INSERT OR IGNORE INTO events (id, site_id, ts, type, anon_id, path, raw) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const commit = db.transaction((batch) => {
      for (const row of batch) insert.run(uuidV5(row.raw), 'bench', row.ts, row.type, row.visitor, row.path, row.raw);
    });
    const pageviews = new Map();
    const visitors = new Map();
    let batch = [];
    let rows = 0;
    for await (const row of rowsOf(format, file)) {
      rows++;
      batch.push(row);
      const day = Math.floor(row.ts / dayMs);
      if (row.type === 'pageview') {
        const key = `${day}|${row.path}`;
        pageviews.set(key, (pageviews.get(key) ?? 0) + 1);
      }
      let seen = visitors.get(day);
      if (!seen) visitors.set(day, (seen = new Set()));
      seen.add(row.visitor);
      if (batch.length === 5000) {
        commit.immediate(batch);
        batch = [];
      }
    }
    if (batch.length > 0) commit.immediate(batch);
    const storedSeconds = (performance.now() - started) / 1000;
    db.transaction(() => {
      const byPath = db.prepare('INSERT INTO pageviews_by_day VALUES (?, ?, ?)');
      for (const [key, count] of pageviews) {
        const [day, path] = key.split('|');
        byPath.run(Number(day), path, count);
      }
      const byDay = db.prepare('INSERT INTO visitors_by_day VALUES (?, ?)');
      for (const [day, set] of visitors) byDay.run(day, set.size);
    }).immediate();
    const cpu = process.cpuUsage(cpuStarted);
    console.log(
      JSON.stringify({ rows, stored_s: storedSeconds, projected_s: (performance.now() - started) / 1000, cpu_s: (cpu.user + cpu.system) / 1e6, rss_mib: process.memoryUsage().rss / 2 ** 20 }),
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
