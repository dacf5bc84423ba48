// The staging log's removals, in the one order the random streams rarely produce: a visitor's addition to a set is
// moved and folded into the stored set after the commit that took the visitor out of that set, but before that
// commit's log row is moved. Moving the removal must then take the visitor out of the stored set again.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { inWriteTransaction } from '../../src/db/statements.ts';
import { enrichEvent } from '../../src/ingest/enrich.ts';
import { storeGroup } from '../../src/ingest/store-group.ts';
import '../../src/ingest/write-listener-modules.ts';
import { Dim } from '../../src/reports/dimensions.ts';
import { Grain, dayOf } from '../../src/reports/periods.ts';
import { listSiteStagingLog } from '../../src/reports/queries/staging-log-rows.ts';
import { findValueId } from '../../src/reports/queries/value-rows.ts';
import { findVisitorNumber } from '../../src/reports/queries/visitor-number-rows.ts';
import { readVisitorContainer } from '../../src/reports/queries/visitor-set-rows.ts';
import { foldPendingRollups } from '../../src/reports/rollup/fold-pending.ts';
import { moveStagingLog } from '../../src/reports/rollup/staging-log.ts';
import { chunkOf, containerMembers, lowOf } from '../../src/reports/rollup/visitor-container.ts';
import { makeTempDir } from '../_setup.ts';

const chrome = { browser: 'Chrome', os: 'Windows', device_type: 'desktop', is_bot: false };

function pageview(tsMs: number, referrer: string | null) {
  const id = randomUUID();
  const event = { id, site_id: 'blog', anon_id: 'anon-1', ts: new Date(tsMs).toISOString(), type: 'pageview', url: 'https://blog.example/a', referrer };
  return enrichEvent({
    siteId: 'blog',
    event: event as never,
    canonicalId: id,
    tsMs,
    revenueMinor: null,
    raw: JSON.stringify(event),
    visitor: { agent: chrome as never, geo: { country: null, region: null, city: null }, internal: false },
  });
}

describe('the staging log', () => {
  it('takes a visitor out of a stored set when a removal is moved after its addition was folded', () => {
    const db = openDatabase(join(makeTempDir(), 'sightline.db'));
    const now = new Date().toISOString();
    db.prepare("INSERT INTO workspaces (id, slug, name, created_at, updated_at) VALUES ('w1', 'w1', 'W', ?, ?)").run(now, now);
    db.prepare("INSERT INTO sites (id, workspace_id, name, created_at) VALUES ('blog', 'w1', 'Blog', ?)").run(now);
    const tenOClock = Date.UTC(2026, 10, 2, 10);
    // A visit from Google, then (in another commit) a late earlier event without a referrer: the visit's first
    // event, and so its source, changes, and the visitor leaves the Google set of that day.
    storeGroup(db, [{ events: [pageview(tenOClock, 'https://www.google.com/')], quarantined: [] }], tenOClock);
    const visitBefore = db.prepare('SELECT source FROM sessions').get() as { source: string };
    storeGroup(db, [{ events: [pageview(tenOClock - 10 * 60_000, null)], quarantined: [] }], tenOClock);
    const visitAfter = db.prepare('SELECT source FROM sessions').get() as { source: string };
    expect(visitAfter.source).not.toBe(visitBefore.source);
    expect(listSiteStagingLog(db, 'blog')).toHaveLength(2);

    // Move the first commit's row only, fold it into the stored sets, then move the second.
    expect(inWriteTransaction(db, () => moveStagingLog(db, 1))).toEqual({ entries: expect.any(Number), more: true });
    while (inWriteTransaction(db, () => foldPendingRollups(db, 10_000))) {
      // fold everything staged
    }
    const vid = findVisitorNumber(db, 'blog', 'anon-1')!;
    const valueId = findValueId(db, 'blog', Dim.source, visitBefore.source)!;
    const address = { site_id: 'blog', dim: Dim.source, grain: Grain.day, period: dayOf(tenOClock), internal: 0, value_id: valueId, chunk: chunkOf(vid) };
    const members = () => {
      const container = readVisitorContainer(db, address);
      return container ? containerMembers(container) : [];
    };
    expect(members()).toContain(lowOf(vid));

    inWriteTransaction(db, () => moveStagingLog(db, 1_000));
    expect(listSiteStagingLog(db, 'blog')).toHaveLength(0);
    expect(members()).not.toContain(lowOf(vid));
    db.close();
  });
});
