// Dedup without an index in the acknowledging commit: a repeat is found in the writer's in-memory tail (events after
// event_keys_through) or in event_keys (extended by the projector's batches), across restarts, other writers and
// rolled-back inserts, and a site's deletion or a log that lost commits leaves no key that could refuse a new event.
import { describe, expect, it } from 'vitest';
import { siteDataRemovers } from '../../src/app.ts';
import { removeSiteData } from '../../src/tenants/site-data.ts';
import { type Db, openEventLog } from '../../src/db/open.ts';
import { eventKeysThrough } from '../../src/event-store/queries/event-keys.ts';
import { EventDedup } from '../../src/ingest/event-dedup.ts';
import '../../src/ingest/service.ts';
import { storeGroup } from '../../src/ingest/store-group.ts';
import { projectBatch } from '../../src/projector/project-batch.ts';
import { reconcileProjection } from '../../src/projector/reconcile.ts';
import '../../src/projector/site-projection.ts';
import { enrichedPageview, openBlogDatabase } from '../storage-fixtures.ts';

type Event = ReturnType<typeof enrichedPageview>;

function writer(db: Db) {
  const log = openEventLog(db.name);
  const dedup = EventDedup.open(log, db.name);
  /** Stores each request of the group; returns [accepted, duplicates] per request. */
  const store = (...requests: Event[][]) =>
    storeGroup(log, dedup, requests.map((events) => ({ events, quarantined: [] })), Date.now()).outcomes.map((outcome) =>
      outcome.ok ? [outcome.result.accepted, outcome.result.duplicates] : outcome.message,
    );
  const close = () => {
    dedup.close();
    log.close();
  };
  return { log, dedup, store, close };
}

/** A fresh database with one writer; both closed after `run`. */
function withWriter(run: (db: Db, store: ReturnType<typeof writer>['store']) => void): void {
  const db = openBlogDatabase();
  const { store, close } = writer(db);
  try {
    run(db, store);
  } finally {
    close();
    db.close();
  }
}

const stored = (db: Db) => db.prepare<[], number>('SELECT count(*) FROM eventlog.events').pluck().get();
const project = (db: Db) => projectBatch(db, { maxEvents: 5000, now: Date.now() });

describe('dedup by (site_id, id)', () => {
  it('finds a repeat in the same request, the same group, a later group, after the projector indexed it, and after a restart', () => {
    const db = openBlogDatabase();
    const first = writer(db);
    const [a, b, c] = [enrichedPageview(), enrichedPageview(), enrichedPageview()];
    expect(first.store([a, a], [a, b])).toEqual([[1, 1], [1, 1]]);
    expect(first.store([b])).toEqual([[0, 1]]);
    expect(first.dedup.size).toBe(2);
    project(db);
    expect(eventKeysThrough(db)).toBe(2);
    // The tail drops what event_keys holds at the next group; the repeats are then found there.
    expect(first.store([a, c])).toEqual([[1, 1]]);
    expect(first.dedup.size).toBe(1);
    first.close();
    // A new writer (a restart): a, b from event_keys, c from the tail it builds from the log.
    const second = writer(db);
    expect(second.store([a], [b], [c])).toEqual([[0, 1], [0, 1], [0, 1]]);
    expect(second.dedup.size).toBe(1);
    expect(stored(db)).toBe(3);
    second.close();
    db.close();
  });

  it('tells the same id on another site apart', () =>
    withWriter((db, store) => {
      db.prepare("INSERT INTO sites (id, workspace_id, name, created_at) VALUES ('shop', 'w1', 'Shop', '2026-01-01')").run();
      const a = enrichedPageview();
      expect(store([a])).toEqual([[1, 0]]);
      expect(store([{ ...a, site_id: 'shop' }])).toEqual([[1, 0]]);
      expect(store([{ ...a, site_id: 'shop' }], [a])).toEqual([[0, 1], [0, 1]]);
    }));

  it('tells apart different ids that share a dedup key or its low 30 bits, in the tail and in event_keys', () =>
    withWriter((db, store) => {
      const a = enrichedPageview();
      const sharesTailKey = { ...enrichedPageview(), dedup_key: a.dedup_key + 2 ** 30 };
      const sharesDedupKey = { ...enrichedPageview(), dedup_key: a.dedup_key };
      expect(store([a], [sharesTailKey], [sharesDedupKey])).toEqual([[1, 0], [1, 0], [1, 0]]);
      expect(store([a], [sharesTailKey], [sharesDedupKey])).toEqual([[0, 1], [0, 1], [0, 1]]);
      project(db);
      expect(store([sharesDedupKey, a], [{ ...enrichedPageview(), dedup_key: a.dedup_key }])).toEqual([[0, 2], [1, 0]]);
      expect(stored(db)).toBe(4);
    }));

  it('indexes keys once the projector has caught up, and in chunks while it works through a backlog', () =>
    withWriter((db, store) => {
      const events = [enrichedPageview(), enrichedPageview(), enrichedPageview()];
      expect(store(...events.map((event) => [event]))).toEqual([[1, 0], [1, 0], [1, 0]]);
      // Full batches of one event: not caught up, and far from a chunk.
      projectBatch(db, { maxEvents: 1, now: Date.now() });
      projectBatch(db, { maxEvents: 1, now: Date.now() });
      expect(eventKeysThrough(db)).toBe(0);
      expect(store(events)).toEqual([[0, 3]]);
      // The last batch reads to the log's end: everything it passed is indexed.
      projectBatch(db, { maxEvents: 2, now: Date.now() });
      expect(eventKeysThrough(db)).toBe(3);
      expect(store(events)).toEqual([[0, 3]]);
    }));

  it('sees events another connection committed (the CLI, another process) as stored', () => {
    const db = openBlogDatabase();
    const ours = writer(db);
    const theirs = writer(db);
    const a = enrichedPageview();
    expect(ours.store([enrichedPageview()])).toEqual([[1, 0]]);
    expect(theirs.store([a])).toEqual([[1, 0]]);
    expect(ours.store([a])).toEqual([[0, 1]]);
    ours.close();
    theirs.close();
    db.close();
  });

  it('never takes a new event for a rolled-back one whose seq it took', () =>
    withWriter((db, store) => {
      const [a, b] = [enrichedPageview(), enrichedPageview()];
      const broken = { ...enrichedPageview(), type: null as unknown as string };
      // a is inserted, then its request fails and rolls back; b takes a's seq in the next request.
      expect(store([a, broken], [b], [a])).toEqual([expect.stringContaining('NOT NULL'), [1, 0], [1, 0]]);
      expect(store([a], [b])).toEqual([[0, 1], [0, 1]]);
      expect(stored(db)).toBe(2);
    }));

  it("forgets a deleted site's keys, and the keys past the end of a log that lost commits", () =>
    withWriter((db, store) => {
      const a = enrichedPageview();
      expect(store([a], [enrichedPageview()])).toEqual([[1, 0], [1, 0]]);
      project(db);
      const keys = () => db.prepare<[], number>('SELECT count(*) FROM event_keys').pluck().get();
      expect(keys()).toBe(2);
      // A log that lost its last commit (power failure with synchronous=NORMAL): the key of seq 2 goes.
      db.prepare("UPDATE projector_state SET position = 9").run();
      db.prepare("UPDATE event_keys_through SET seq = 9").run();
      db.prepare('DELETE FROM eventlog.events WHERE seq = 2').run();
      db.prepare("UPDATE eventlog.sqlite_sequence SET seq = 1 WHERE name = 'events'").run();
      expect(reconcileProjection(db, Date.now())).toBe(true);
      expect(keys()).toBe(1);
      expect(eventKeysThrough(db)).toBe(1);
      db.transaction(() => removeSiteData(db, siteDataRemovers, 'blog'))();
      expect(keys()).toBe(0);
      expect(store([a])).toEqual([[1, 0]]);
    }));
});
