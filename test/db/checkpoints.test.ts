// WAL checkpoints of the event log. The projector thread checkpoints on its own connection while the HTTP thread
// commits, so its checkpoint can end with frames it could not copy (they arrived while it ran, or a reader still
// needed them). The WAL only starts over when a commit begins with every frame copied; without the writer finishing
// the checkpoint it grew by 2 GB a minute at 2,000 events/s. These tests replay that race step by step with a reader
// holding an old snapshot, then show the writer's own checkpoint letting the next commit start the WAL over.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointPassive, checkpointPeriodically, finishLeftoverFrames, settleEventLogCheckpoint } from '../../src/db/checkpointer.ts';
import { type Db, openEventLog, walSizeLimitBytes } from '../../src/db/open.ts';
import { createInlineCommitter } from '../../src/ingest/committer.ts';
import { EventDedup } from '../../src/ingest/event-dedup.ts';
import { storeGroup } from '../../src/ingest/store-group.ts';
import { WriteQueue } from '../../src/ingest/write-queue.ts';
import { createAppMetrics } from '../../src/metrics/app-metrics.ts';
import { enrichedPageview, openBlogDatabase } from '../storage-fixtures.ts';

/** The WAL header's checkpoint sequence number: it goes up each time the WAL starts over (sqlite.org/fileformat.html). */
function walRestarts(databasePath: string): number {
  return readFileSync(join(dirname(databasePath), 'events.db-wal')).readUInt32BE(12);
}

function commitOne(log: Db): void {
  storeGroup(log, new EventDedup(log, undefined), [{ events: [enrichedPageview()], quarantined: [] }], Date.now());
}

describe('event log checkpoints', () => {
  it('a checkpoint on another connection that a reader held back never lets the WAL start over; the writer finishing it does', () => {
    const db = openBlogDatabase();
    const writer = openEventLog(db.name);
    writer.pragma('wal_autocheckpoint = 0');
    const reader = openEventLog(db.name);
    // The projector thread's connection: sightline.db with the event log attached.
    const checkpointer = db;

    for (let index = 0; index < 20; index++) commitOne(writer);
    // A reader's snapshot (the projector in a batch) keeps the checkpoint from copying what came after it.
    const snapshot = reader.transaction(() => {
      reader.prepare('SELECT count(*) AS n FROM events').get();
      for (let index = 0; index < 20; index++) commitOne(writer);
      const partial = checkpointPassive(checkpointer, 'eventlog')!;
      expect(partial.checkpointed).toBeLessThan(partial.log);
      return partial;
    });
    snapshot();
    // The reader is gone, but the writer's next commits begin with frames uncopied: the WAL never starts over.
    const restarts = walRestarts(db.name);
    for (let index = 0; index < 5; index++) commitOne(writer);
    expect(walRestarts(db.name)).toBe(restarts);

    // The writer finishes the checkpoint between two commits: its next commit starts the WAL over.
    const finished = checkpointPassive(writer)!;
    expect(finished.checkpointed).toBe(finished.log);
    commitOne(writer);
    expect(walRestarts(db.name)).toBe(restarts + 1);
    expect(writer.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 46 });
    for (const connection of [reader, writer, db]) connection.close();
  });

  it('caps the WAL file at walSizeLimitBytes when it starts over', () => {
    const db = openBlogDatabase();
    expect(db.pragma('eventlog.journal_size_limit', { simple: true })).toBe(walSizeLimitBytes);
    expect(db.pragma('main.journal_size_limit', { simple: true })).toBe(walSizeLimitBytes);
    expect(openEventLog(db.name).pragma('journal_size_limit', { simple: true })).toBe(walSizeLimitBytes);
    db.close();
  });

  it('the periodic checkpoint tells the writer when the event log still holds finishFrames frames, and not before', async () => {
    const db = openBlogDatabase();
    const writer = openEventLog(db.name);
    writer.pragma('wal_autocheckpoint = 0');
    const reader = openEventLog(db.name);
    // The count starts at this test's commits: the new database's WAL still holds the schema's frames (the event
    // log's tables and indexes, more than finishFrames since schema 31's index).
    writer.pragma('wal_checkpoint(TRUNCATE)');
    let told = 0;
    const tick = async () => {
      const stop = checkpointPeriodically(db, { intervalMs: 5, finishFrames: 30, onEventLogBacklog: () => told++ });
      await new Promise((resolve) => setTimeout(resolve, 40));
      stop();
    };
    commitOne(writer);
    await tick();
    expect(told).toBe(0);
    // A reader's snapshot holds the checkpoint back while 40 more commits arrive: the frames stay, the writer is told.
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM events').get();
    for (let index = 0; index < 40; index++) commitOne(writer);
    await tick();
    reader.prepare('COMMIT').run();
    expect(told).toBeGreaterThan(0);
    for (const connection of [reader, writer, db]) connection.close();
  });
});

describe('settling the event log checkpoint before the writer finishes it', () => {
  it('copies what is left on the checkpointing connection, and gives up after a few rounds when a reader holds it back', () => {
    const db = openBlogDatabase();
    const writer = openEventLog(db.name);
    writer.pragma('wal_autocheckpoint = 0');
    const reader = openEventLog(db.name);
    commitOne(writer);
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM events').get();
    for (let index = 0; index < 150; index++) commitOne(writer);
    // Held back by the reader: the rounds are bounded and the frames stay for the writer.
    const held = checkpointPassive(db, 'eventlog')!;
    expect(held.log - held.checkpointed).toBeGreaterThan(finishLeftoverFrames);
    expect(settleEventLogCheckpoint(db, held)).toBe(4);
    reader.prepare('COMMIT').run();
    // Once the reader is gone one round copies everything, so the writer's own checkpoint has nothing to sync.
    expect(settleEventLogCheckpoint(db, held)).toBe(1);
    const after = checkpointPassive(db, 'eventlog')!;
    expect(after.log - after.checkpointed).toBe(0);
    // Little left: no round at all.
    expect(settleEventLogCheckpoint(db, after)).toBe(0);
    for (const connection of [reader, writer, db]) connection.close();
  });
});

describe('WriteQueue.finishCheckpoint', () => {
  it('runs the committer checkpoint at once when no commit is under way, after the commit when one is, never after drain', async () => {
    const db = openBlogDatabase();
    const committer = createInlineCommitter({ databasePath: db.name });
    const calls: string[] = [];
    let release: () => void = () => undefined;
    const traced = {
      ...committer,
      // A commit that ends when the test says: the queue sees it in flight meanwhile.
      commit: async (...args: Parameters<typeof committer.commit>) => {
        calls.push('commit');
        await new Promise<void>((resolve) => (release = resolve));
        return committer.commit(...args);
      },
      finishCheckpoint: () => {
        calls.push('checkpoint');
        committer.finishCheckpoint();
      },
    };
    const queue = new WriteQueue(traced, { now: () => Date.now() }, createAppMetrics(db));
    queue.finishCheckpoint();
    expect(calls).toEqual(['checkpoint']);

    const stored = queue.submit({ events: [enrichedPageview()], quarantined: [] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['checkpoint', 'commit']);
    queue.finishCheckpoint();
    expect(calls).toEqual(['checkpoint', 'commit']);
    release();
    await stored;
    expect(calls).toEqual(['checkpoint', 'commit', 'checkpoint']);

    await queue.drain();
    queue.finishCheckpoint();
    expect(calls).toEqual(['checkpoint', 'commit', 'checkpoint']);
    db.close();
  });
});
