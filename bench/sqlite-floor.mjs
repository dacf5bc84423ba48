// The floor the ingest path is measured against: a bare 5-event commit into a WAL-mode SQLite file on this disk,
// with synchronous NORMAL and FULL, nothing else in the way (no HTTP, no thread hand-off, no indexes but the rowid).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** p50 and p99 (ms) of `commits` transactions of 5 rows of ~200 bytes each. */
export function measureCommitFloor(synchronous, commits = 2000) {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-floor-'));
  const db = new Database(join(dir, 'floor.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY, raw TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO events (raw) VALUES (?)');
    const commit = db.transaction((rows) => {
      for (const row of rows) insert.run(row);
    });
    const times = [];
    for (let index = 0; index < commits; index++) {
      const rows = Array.from({ length: 5 }, () => `{"id":"${randomUUID()}","site_id":"bench","anon_id":"v${index}","type":"pageview","url":"https://bench.example/page"}`);
      const started = performance.now();
      commit.immediate(rows);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
