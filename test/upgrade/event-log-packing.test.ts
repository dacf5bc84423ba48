// The upgrade that packs the event log's rows (schema.sql, the section that creates events_v30; docs/scaling.md
// "Size"): a log written by the release before it, with the shapes stored events take (tracker and API texts,
// overrides, custom types, a type that reads like a code, revenue, a commit time before ts, texts the codec keeps
// as they are), reads every column the same after it, raw byte for byte, and keeps the AUTOINCREMENT high-water mark
// past deleted newest events. The events then written by this release read as the old ones did.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { schemaSections } from '../../src/db/schema.ts';
import { insertEvent } from '../../src/event-store/queries/event-rows.ts';
import { storedCodeTables } from '../../src/event-store/queries/stored-codes.ts';
import { makeTempDir } from '../_setup.ts';
import { enrichedPageview } from '../storage-fixtures.ts';
import { naughtyStrings } from '../_naughty-strings.ts';
import { databaseAtVersion } from './_old-schema.ts';

const packing = schemaSections.find((section) => section.sql.includes('CREATE TABLE eventlog.events_v30'))!;
const ts = Date.UTC(2026, 10, 20, 9, 30, 0, 250);
const iso = (at: number) => new Date(at).toISOString();

interface OldRow {
  site_id: string; id_override: string | null; anon_id_override: string | null; query_override: string | null; type: string;
  ts: number; received_at: number; user_id: string | null; path: string | null; source: string; utm_source: string | null;
  browser: string | null; os: string | null; device_type: string | null; revenue_minor: number | null; revenue_currency: string | null; raw: string;
}

const base = { id_override: null, anon_id_override: null, query_override: null, user_id: null, utm_source: null, browser: null, os: null, device_type: null, revenue_minor: null, revenue_currency: null };
const tracker = (site: string, at: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: randomUUID(), site_id: site, ts: iso(at), type: 'pageview', url: 'https://shop.example/p?utm_source=news', referrer: null, anon_id: 'alice', ...extra });

/** The rows the previous release stored, one per shape. */
const oldRows: OldRow[] = [
  { ...base, site_id: 'shop', type: 'pageview', ts, received_at: ts + 40, path: '/p', source: 'direct', utm_source: 'news', raw: tracker('shop', ts) },
  { ...base, site_id: 'shop', type: 'engagement', ts: ts + 1, received_at: ts + 9000, path: '/p', source: 'direct', raw: tracker('shop', ts + 1, { type: 'engagement', props: { scroll_depth: 80, engaged_ms: 4200 } }) },
  { ...base, site_id: 'shop', type: 'signup', ts: ts + 2, received_at: ts - 5000, path: '/p', source: 'direct', user_id: 'u-1', raw: tracker('shop', ts + 2, { type: 'signup', user_id: 'u-1' }) },
  { ...base, site_id: 'shop', type: '1', ts: ts + 3, received_at: ts + 3, path: '/p', source: 'direct', raw: tracker('shop', ts + 3, { type: '1' }) },
  { ...base, site_id: 'shop', type: 'purchase', ts: ts + 4, received_at: ts + 4, path: null, source: 'direct', revenue_minor: 4500, revenue_currency: 'EUR', raw: `{"id":"${randomUUID()}","site_id":"shop","type":"purchase","ts":${ts + 4},"revenue":{"amount":"45.00","currency":"EUR"}}` },
  // Overrides: a repeated key and a URL the collector normalised, as version 9 stores them.
  { ...base, site_id: 'shop', id_override: '0a7f6a52-5cb3-4c84-9d7e-6f3c2a1b0e9d', anon_id_override: 'bob', query_override: '', type: 'pageview', ts: ts + 5, received_at: ts + 5, path: '/', source: 'direct', raw: `{"id":"x","id":"0A7F6A52-5CB3-4C84-9D7E-6F3C2A1B0E9D","anon_id":"b","anon_id":"bob","url":"https://shop.example/?","ts":"${iso(ts + 5)}"}` },
  { ...base, site_id: 'other-site-ü', type: 'pageview', ts: ts + 6, received_at: ts + 6, path: '/', source: 'google', raw: tracker('other-site-ü', ts + 6, { props: { t: '日本 🎉 \uFFFD' } }) },
  { ...base, site_id: 'shop', type: 'pageview', ts: ts + 7, received_at: ts + 7, path: '/', source: 'direct', raw: '{}' },
  { ...base, site_id: 'shop', type: 'pageview', ts: ts + 8, received_at: ts + 8, path: '/', source: 'direct', raw: `{ "ts" : "${iso(ts + 8)}" , "url":"https://shop.example/" }` },
  // Every coded value and values beside them: the upgrade's codes and the virtual columns' decoding agree.
  ...Object.entries(storedCodeTables).flatMap(([column, codes]) =>
    [...codes.keys(), `${[...codes.keys()][0]!}X`, '1'].map((value, index) => ({
      ...base, site_id: 'shop', type: 'pageview', ts: ts + 1000 + index, received_at: ts + 1000 + index, path: '/', source: 'direct',
      ...(column === 'type' ? { type: value } : { [column]: value }), raw: tracker('shop', ts + 1000 + index),
    })),
  ),
  ...([['direct', null], ['news', 'News'], ['news', 'news'], ['news', 'Other'], ['ünï', 'ÜNÏ'], ['ünï', 'ünï'], ['1', null], ['2', '2']] as const).map(
    ([source, utm], index) => ({ ...base, site_id: 'shop', type: 'pageview', ts: ts + 2000 + index, received_at: ts + 2000 + index, path: '/', source, utm_source: utm, raw: tracker('shop', ts + 2000 + index) }),
  ),
  ...naughtyStrings.map((text, index) => ({ ...base, site_id: 'shop', type: 'click', ts: ts + 10 + index, received_at: ts + 10 + index, path: '/n', source: 'direct', raw: tracker('shop', ts + 10 + index, { props: { text } }) })),
];

/** Every column of the old table (table_xinfo: generated ones too), row by row in seq order. */
function readAll(db: ReturnType<typeof openDatabase>, columns: string[]): Record<string, unknown>[] {
  return db.prepare(`SELECT ${columns.map((column) => `"${column}"`).join(', ')} FROM eventlog.events ORDER BY seq`).all() as Record<string, unknown>[];
}

describe('packing the event log (schema version 30)', () => {
  it('reads every column of every event the same after the upgrade, raw byte for byte, and keeps the seq high-water mark', () => {
    expect(packing, 'the section that creates events_v30').toBeDefined();
    const dataDir = makeTempDir();
    let columns: string[] = [];
    let before: Record<string, unknown>[] = [];
    const path = databaseAtVersion(dataDir, packing.version - 1, (db) => {
      const insert = db.prepare(
        `INSERT INTO eventlog.events (site_id, id_override, anon_id_override, query_override, dedup_key, type, ts, received_at, user_id, path,
           source, utm_source, browser, os, device_type, revenue_minor, revenue_currency, raw)
         VALUES (:site_id, :id_override, :anon_id_override, :query_override, :dedup_key, :type, :ts, :received_at, :user_id, :path,
           :source, :utm_source, :browser, :os, :device_type, :revenue_minor, :revenue_currency, :raw)`,
      );
      oldRows.forEach((row, index) => insert.run({ ...row, dedup_key: 1000 + index }));
      // Two more, then deleted: the newest seqs must stay used.
      for (const extra of [1, 2]) insert.run({ ...oldRows[0]!, dedup_key: extra, raw: tracker('shop', ts) });
      db.prepare('DELETE FROM eventlog.events WHERE seq > ?').run(oldRows.length);
      columns = (db.pragma('eventlog.table_xinfo(events)') as { name: string }[]).map((column) => column.name);
      before = readAll(db as never, columns);
    });
    expect(columns).toEqual(expect.arrayContaining(['raw', 'type', 'received_at', 'id', 'anon_id', 'url', 'referrer', 'props', 'query']));
    expect(before).toHaveLength(oldRows.length);

    const db = openDatabase(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(packing.version);
      const after = readAll(db, columns);
      expect(after).toEqual(before);
      // raw byte for byte, not only as equal JavaScript strings.
      const bytes = db.prepare('SELECT CAST(raw AS BLOB) AS raw FROM eventlog.events ORDER BY seq').pluck().all() as Buffer[];
      expect(bytes.map((raw, index) => raw.equals(Buffer.from(oldRows[index]!.raw, 'utf8')))).toEqual(oldRows.map(() => true));
      // Stored packed: the tracker's event in under half of its text.
      const packed = db.prepare('SELECT length(raw_packed) FROM eventlog.events WHERE seq = 1').pluck().get() as number;
      expect(packed).toBeLessThan(Buffer.byteLength(oldRows[0]!.raw) / 2);
      // Codes for the two common types, the text for others (and for the type '1').
      expect(db.prepare('SELECT typeof(type_stored) FROM eventlog.events ORDER BY seq LIMIT 4').pluck().all()).toEqual(['integer', 'integer', 'text', 'text']);

      // This release's writer stores each old row's values so they read the same (its codes and SQL's agree).
      const rewritten = openDatabase(join(makeTempDir(), 'sightline.db'));
      try {
        for (const row of before) {
          insertEvent(rewritten, { ...enrichedPageview(), ...row, raw: row.raw as string, id: row.id as string, anon_id: row.anon_id as string, query: row.query as string | null, raw_reads_canonical: false } as never, row.received_at as number);
        }
        const again = readAll(rewritten, columns).map(({ seq: _seq, id_override: _i, anon_id_override: _a, query_override: _q, ...rest }) => rest);
        expect(again).toEqual(before.map(({ seq: _seq, id_override: _i, anon_id_override: _a, query_override: _q, ...rest }) => rest));
      } finally {
        rewritten.close();
      }

      // This release's writer continues after the deleted seqs, and its rows read as the old ones did.
      const event = enrichedPageview({ tsMs: ts + 100_000, path: '/new' });
      const seq = insertEvent(db, event, ts + 100_250);
      expect(seq).toBe(oldRows.length + 3);
      expect(db.prepare('SELECT raw, type, received_at, id, anon_id, path FROM eventlog.events WHERE seq = ?').get(seq)).toEqual({
        raw: event.raw, type: 'pageview', received_at: ts + 100_250, id: event.id, anon_id: event.anon_id, path: '/new',
      });
    } finally {
      db.close();
    }
  });
});
