// How long the upgrade that packs the event log (schema.sql, the section creating events_v30) takes: a log of
// `events` rows shaped like the ingest benchmark's (bench/load.mjs, through the Chrome user agent), written at the
// version before it, then opened by this release (backup first, then the table rebuilt). Run by
// `npm run bench -- ingest --only upgrade --events N`.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { eventLogPath, openDatabase } from '../src/db/open.ts';
import { registerRawFunctions } from '../src/db/raw-codec.ts';
import { schemaSections, stepsOf } from '../src/db/schema.ts';

/** Bytes per event of the events table and each of its indexes (dbstat), by b-tree name. */
function eventTrees(db: Database.Database, events: number): Record<string, number> {
  const rows = db
    .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat('eventlog') WHERE name IN (SELECT name FROM eventlog.sqlite_master WHERE tbl_name = 'events') GROUP BY name")
    .all() as { name: string; bytes: number }[];
  return Object.fromEntries(rows.map((row) => [row.name, Math.round((row.bytes / events) * 10) / 10]));
}

export function measureUpgrade(dir: string, events: number): {
  events: number; elapsedMs: number; cpuMs: number; bytesBefore: number; bytesAfter: number; treesBefore: Record<string, number>; treesAfter: Record<string, number>;
} {
  const packing = schemaSections.find((section) => section.sql.includes('CREATE TABLE eventlog.events_v30'))!;
  const path = join(dir, 'sightline.db');
  const old = new Database(path);
  registerRawFunctions(old);
  old.pragma('journal_mode = WAL');
  old.prepare('ATTACH DATABASE ? AS eventlog').run(eventLogPath(path));
  old.pragma('eventlog.journal_mode = WAL');
  for (const section of schemaSections.filter((section) => section.version < packing.version)) {
    for (const step of stepsOf(section.sql)) old.exec(step);
    old.pragma(`user_version = ${section.version}`);
  }
  const insert = old.prepare(
    `INSERT INTO eventlog.events (site_id, dedup_key, type, ts, received_at, path, source, utm_source, browser, os, device_type, raw)
     VALUES ('bench', ?, 'pageview', ?, ?, ?, 'bench', 'bench', 'Chrome', 'Windows', 'desktop', ?)`,
  );
  const start = Date.UTC(2026, 9, 1);
  old.transaction(() => {
    for (let index = 0; index < events; index++) {
      const ts = start + index * 100;
      const id = randomUUID();
      const page = Math.floor(Math.random() * 500);
      const raw =
        `{"id":"${id}","site_id":"bench","anon_id":"visitor-${Math.floor(Math.random() * 50_000)}","ts":"${new Date(ts).toISOString()}","type":"pageview",` +
        `"url":"https://bench.example/page/${page}?utm_source=bench","referrer":"https://www.google.com/"}`;
      insert.run(parseInt(id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 15), 16), ts, ts + 3, `/page/${page}`, raw);
    }
  })();
  old.pragma('eventlog.wal_checkpoint(TRUNCATE)');
  const treesBefore = eventTrees(old, events);
  old.close();
  const logPath = eventLogPath(path);
  const bytesBefore = statSync(logPath).size;
  const cpu = process.cpuUsage();
  const began = performance.now();
  const db = openDatabase(path);
  const elapsedMs = performance.now() - began;
  const used = process.cpuUsage(cpu);
  db.pragma('eventlog.wal_checkpoint(TRUNCATE)');
  const treesAfter = eventTrees(db, events);
  db.close();
  return { events, elapsedMs, cpuMs: (used.user + used.system) / 1000, bytesBefore, bytesAfter: statSync(logPath).size, treesBefore, treesAfter };
}
