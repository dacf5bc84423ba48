// Upgrading a database of schema version 6 (events, visits and rollups in sightline.db) to version 7 (the event log in
// events.db, everything derived projected again): every event and quarantined event moves, nothing is lost when the
// upgrade stops between its two steps, and the projector derives the same reports as a naive computation.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLogPath, openDatabase } from '../../src/db/open.ts';
import { schemaSections, stepsOf } from '../../src/db/schema.ts';
import { makeTempDir, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';
import { naiveSummary } from '../reports/naive-reports.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** A database as version 6 left it: one workspace and site, three events of two visitors, one quarantined event. */
function versionSixDatabase(dataDir: string): string {
  const path = join(dataDir, 'sightline.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const section of schemaSections.filter((section) => section.version <= 6)) {
    db.exec(section.sql);
    db.pragma(`user_version = ${section.version}`);
  }
  db.prepare("INSERT INTO workspaces VALUES ('w1', 'old', 'Old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')").run();
  db.prepare("INSERT INTO sites VALUES ('legacy', 'w1', 'Legacy', '2026-01-01T00:00:00.000Z')").run();
  const insert = db.prepare(
    `INSERT INTO events (site_id, id, dedup_key, type, ts, received_at, anon_id, url, path, source, browser, raw)
     VALUES ('legacy', :id, :dedup_key, 'pageview', :ts, :ts, :anon_id, 'https://old.example/', '/', 'direct', 'Chrome', :raw)`,
  );
  [['a', 0], ['a', 60_000], ['b', 120_000]].forEach(([anon, offset], index) => {
    const id = `0000000${index}-0000-4000-8000-000000000000`;
    const ts = Date.parse('2026-03-01T10:00:00.000Z') + (offset as number);
    insert.run({ id, dedup_key: index, ts, anon_id: anon, raw: JSON.stringify({ id: id.toUpperCase(), site_id: 'legacy', anon_id: anon, type: 'pageview', url: 'https://old.example/', context: { user_agent: chrome } }) });
  });
  db.prepare("INSERT INTO dlq VALUES ('d1', 'legacy', '{}', '[]', '{}', '2026-03-01T10:00:00.000Z')").run();
  db.close();
  return path;
}

describe('upgrading to the event log (schema version 7)', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each([['in one go'], ['after a stop between its two steps']])('moves every event and projects them again, %s', async (how) => {
    const dataDir = makeTempDir();
    const path = versionSixDatabase(dataDir);
    if (how !== 'in one go') {
      // The first step alone, as a crash after its commit would leave it: the log filled, sightline.db untouched.
      const db = new Database(path);
      db.prepare('ATTACH DATABASE ? AS eventlog').run(eventLogPath(path));
      db.transaction(() => db.exec(stepsOf(schemaSections[6]!.sql)[0]!)).immediate();
      expect(db.pragma('user_version', { simple: true })).toBe(6);
      expect(db.prepare('SELECT count(*) AS n FROM main.events').get()).toEqual({ n: 3 });
      db.close();
    }
    server = await startTestServer({ dataDir, env: { ADMIN_TOKEN: testAdminToken } });
    const db = server.db;
    expect(db.pragma('user_version', { simple: true })).toBe(schemaSections.length);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('events', 'dlq')").get()).toEqual({ n: 0 });
    // Every event, in its seq, with its id read from raw in lower case; the DLQ row too.
    expect(db.prepare('SELECT seq, id, anon_id FROM eventlog.events ORDER BY seq').all()).toEqual([
      { seq: 1, id: '00000000-0000-4000-8000-000000000000', anon_id: 'a' },
      { seq: 2, id: '00000001-0000-4000-8000-000000000000', anon_id: 'a' },
      { seq: 3, id: '00000002-0000-4000-8000-000000000000', anon_id: 'b' },
    ]);
    expect(db.prepare('SELECT id FROM eventlog.dlq').all()).toEqual([{ id: 'd1' }]);
    const summary = await server.request('GET', '/v1/sites/legacy/reports/summary-v2?from=2026-03-01&to=2026-03-01');
    expect(summary.body.meta.completeness).toEqual({ complete: true });
    expect(summary.body.data).toEqual(naiveSummary(db, { siteIds: ['legacy'], from: '2026-03-01', to: '2026-03-01' }));
    expect(summary.body.data).toMatchObject({ visitors: 2, visits: 2, pageviews: 3 });
    // New events continue the old seqs.
    expect((await server.request('POST', '/events', { token: 'legacy', body: { id: crypto.randomUUID(), site_id: 'legacy', anon_id: 'c', ts: new Date().toISOString(), type: 'click' } })).status).toBe(202);
    expect(db.prepare('SELECT max(seq) AS seq FROM events').get()).toEqual({ seq: 4 });
  });

  it('opens a fresh data directory with both files', () => {
    const dataDir = makeTempDir();
    openDatabase(join(dataDir, 'sightline.db')).close();
    const log = new Database(join(dataDir, 'events.db'), { readonly: true });
    expect(log.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'dlq') ORDER BY name").all()).toEqual([{ name: 'dlq' }, { name: 'events' }]);
    log.close();
  });
});

describe('the event log without stored copies of raw (schema version 9)', () => {
  it('reads every anon_id and query as before, stores overrides only where raw reads otherwise, keeps the seq high-water mark', () => {
    const dataDir = makeTempDir();
    const path = join(dataDir, 'sightline.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.prepare('ATTACH DATABASE ? AS eventlog').run(eventLogPath(path));
    for (const section of schemaSections.filter((section) => section.version <= 8)) {
      for (const step of stepsOf(section.sql)) db.exec(step);
      db.pragma(`user_version = ${section.version}`);
    }
    const insert = db.prepare(
      `INSERT INTO eventlog.events (site_id, dedup_key, type, ts, received_at, anon_id, path, query, source, raw)
       VALUES ('s', :seq, 'pageview', 1, 1, :anon_id, '/', :query, 'direct', :raw)`,
    );
    const rows = [
      { anon_id: 'plain', query: 'x=1', raw: '{"id":"1","anon_id":"plain","url":"https://a.example/?x=1#y"}' },
      { anon_id: 'last', query: null, raw: '{"id":"2","anon_id":"first","url":"https://a.example/","anon_id":"last"}' },
      { anon_id: 'encoded', query: 'q=a%20b', raw: '{"id":"3","anon_id":"encoded","url":"https://a.example/?q=a b"}' },
      { anon_id: 'url-twice', query: null, raw: '{"id":"4","anon_id":"url-twice","url":"https://a.example/?first=1","url":"https://a.example/"}' },
      { anon_id: 'deleted', query: null, raw: '{"id":"5","anon_id":"deleted"}' },
    ];
    rows.forEach((row, index) => insert.run({ ...row, seq: index + 1 }));
    // The newest event deleted: its seq must never be handed out again.
    db.prepare('DELETE FROM eventlog.events WHERE seq = 5').run();
    db.close();

    const upgraded = openDatabase(path);
    expect(upgraded.pragma('user_version', { simple: true })).toBe(schemaSections.length);
    expect(upgraded.prepare('SELECT seq, anon_id, query, anon_id_override, query_override FROM eventlog.events ORDER BY seq').all()).toEqual([
      { seq: 1, anon_id: 'plain', query: 'x=1', anon_id_override: null, query_override: null },
      { seq: 2, anon_id: 'last', query: null, anon_id_override: 'last', query_override: null },
      { seq: 3, anon_id: 'encoded', query: 'q=a%20b', anon_id_override: null, query_override: 'q=a%20b' },
      { seq: 4, anon_id: 'url-twice', query: null, anon_id_override: null, query_override: '' },
    ]);
    // The dedup index left the event log (a later version): every stored event's key is in event_keys instead. The
    // partial index of the other event types came later (retention on an event goal, docs/reports.md).
    expect(upgraded.prepare("SELECT name FROM eventlog.sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").all()).toEqual([
      { name: 'events_by_site' },
      { name: 'events_by_site_ts' },
      { name: 'events_by_site_type_ts' },
    ]);
    expect(upgraded.prepare("SELECT name, seq FROM eventlog.sqlite_sequence WHERE name LIKE 'events%'").all()).toEqual([{ name: 'events', seq: 5 }]);
    expect(upgraded.prepare('SELECT dedup_key, seq FROM event_keys ORDER BY seq').all()).toEqual([1, 2, 3, 4].map((seq) => ({ dedup_key: seq, seq })));
    expect(upgraded.prepare('SELECT seq FROM event_keys_through').pluck().get()).toBe(5);
    upgraded.prepare("INSERT INTO eventlog.events (site_id, dedup_key, type, ts, received_at, source, raw) VALUES ('s', 6, 'click', 1, 1, 'direct', '{}')").run();
    expect(upgraded.prepare('SELECT max(seq) AS seq FROM eventlog.events').get()).toEqual({ seq: 6 });
    upgraded.close();
  });
});

describe('write transactions', () => {
  it('lock sightline.db alone unless they write the event log, so administration never holds the ingest writer', async () => {
    const { inWriteTransaction } = await import('../../src/db/statements.ts');
    const dataDir = makeTempDir();
    const db = openDatabase(join(dataDir, 'sightline.db'));
    const log = new Database(join(dataDir, 'events.db'));
    const main = new Database(join(dataDir, 'sightline.db'));
    const lockable = (other: Database.Database) => {
      try {
        other.exec('BEGIN IMMEDIATE');
        other.exec('ROLLBACK');
        return true;
      } catch (error) {
        return (error as { code?: string }).code === 'SQLITE_BUSY' ? false : Promise.reject(error);
      }
    };
    for (const other of [log, main]) other.pragma('busy_timeout = 0');
    inWriteTransaction(db, () => {
      expect([lockable(log), lockable(main)]).toEqual([true, false]);
    });
    inWriteTransaction(db, () => expect([lockable(log), lockable(main)]).toEqual([false, false]), { eventLog: true });
    for (const handle of [log, main, db]) handle.close();
  });

  it('a write that can be skipped fails at once on a taken lock, and the busy timeout comes back', async () => {
    const { runWithoutWaiting } = await import('../../src/db/statements.ts');
    const dataDir = makeTempDir();
    const db = openDatabase(join(dataDir, 'sightline.db'));
    const holder = new Database(join(dataDir, 'sightline.db'));
    expect(runWithoutWaiting(db, () => db.pragma('busy_timeout', { simple: true }))).toBe(0);
    holder.exec('BEGIN IMMEDIATE');
    expect(() => runWithoutWaiting(db, () => db.prepare("UPDATE workspaces SET name = 'x'").run())).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    holder.exec('ROLLBACK');
    for (const handle of [holder, db]) handle.close();
  });
});
