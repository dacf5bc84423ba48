// The writer thread commits every group that waited while its previous commit ran in one transaction, in order,
// and answers each group with its own outcomes.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { createThreadCommitter, writerThreadFile } from '../../src/ingest/committer.ts';
import { enrichEvent } from '../../src/ingest/enrich.ts';
import type { WriteBatch } from '../../src/ingest/store-group.ts';
import { makeTempDir } from '../_setup.ts';

function batchOf(count: number, id = randomUUID()): WriteBatch {
  const events = Array.from({ length: count }, (_, index) => {
    const eventId = index === 0 ? id : randomUUID();
    const tsMs = Date.UTC(2026, 10, 2, 10);
    const event = { id: eventId, site_id: 'blog', anon_id: 'anon-1', ts: new Date(tsMs).toISOString(), type: 'pageview', url: 'https://blog.example/' };
    return enrichEvent({
      siteId: 'blog',
      event: event as never,
      canonicalId: eventId,
      tsMs,
      revenueMinor: null,
      raw: JSON.stringify(event),
      visitor: { agent: { browser: null, os: null, device_type: null, is_bot: false } as never, geo: { country: null, region: null, city: null }, internal: false },
    });
  });
  return { events, quarantined: [] };
}

describe('the writer thread', () => {
  it('commits the groups that waited in one transaction, in order, up to the events per commit', async () => {
    const db = openDatabase(join(makeTempDir(), 'sightline.db'));
    const now = new Date().toISOString();
    db.prepare("INSERT INTO workspaces (id, slug, name, created_at, updated_at) VALUES ('w1', 'w1', 'W', ?, ?)").run(now, now);
    db.prepare("INSERT INTO sites (id, workspace_id, name, created_at) VALUES ('blog', 'w1', 'Blog', ?)").run(now);
    const file = writerThreadFile();
    expect(file, 'npm test builds dist/writer-thread.mjs first').toBeDefined();
    const committer = createThreadCommitter(db, file!, 5);
    // Hold the write lock while handing over four groups: whatever the writer took first cannot commit before the
    // rest are waiting in its queue.
    db.exec('BEGIN IMMEDIATE');
    const repeated = randomUUID();
    const results = [
      committer.commit([batchOf(2)], Date.now()),
      committer.commit([batchOf(1, repeated)], Date.now()),
      committer.commit([batchOf(2), batchOf(1, repeated)], Date.now()),
      committer.commit([batchOf(3)], Date.now()),
    ];
    await new Promise((resolve) => setTimeout(resolve, 100));
    db.exec('COMMIT');
    const [first, second, third, fourth] = await Promise.all(results);
    // Groups that waited share a transaction, in order, never past 5 events: [1, 2] [3] [4] when the writer found
    // all four waiting, [1] [2, 3] [4] when it took the first before the others arrived.
    const transactions = [first!, second!, third!, fourth!].map((result) => result.committedIn);
    expect(transactions.map((t) => t.transaction - transactions[0]!.transaction)).toSatisfy(
      (steps: number[]) => JSON.stringify(steps) === '[0,0,1,2]' || JSON.stringify(steps) === '[0,1,1,2]',
    );
    for (const t of transactions) expect(t.events).toBeLessThanOrEqual(5);
    // Each group gets its own outcomes; the repeat in the later group of the same transaction is a duplicate.
    expect(third!.outcomes).toEqual([
      { ok: true, result: { accepted: 2, duplicates: 0, quarantined: 0 } },
      { ok: true, result: { accepted: 0, duplicates: 1, quarantined: 0 } },
    ]);
    expect(fourth!.outcomes).toEqual([{ ok: true, result: { accepted: 3, duplicates: 0, quarantined: 0 } }]);
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 8 });
    await committer.close();
    db.close();
  });
});
