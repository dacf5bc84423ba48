// The staging log's removals, in the order the random streams rarely produce: a visitor's addition to a set is still
// in the log when a later commit takes the visitor out of that set, and the log is then moved in two slices with
// the boundary between them. Neither a report nor the stored sets may ever show the visitor in the set again.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/db/open.ts';
import { schemaSections } from '../../src/db/schema.ts';
import { inWriteTransaction } from '../../src/db/statements.ts';
import { storeGroup } from '../../src/ingest/store-group.ts';
import '../../src/ingest/write-listener-modules.ts';
import { Dim } from '../../src/projector/dimensions.ts';
import { Grain, dayOf } from '../../src/projector/periods.ts';
import { listSiteStagingLog } from '../../src/reports/queries/staging-log-rows.ts';
import { findValueId } from '../../src/projector/queries/value-rows.ts';
import { findVisitorNumber } from '../../src/projector/queries/visitor-number-rows.ts';
import { readVisitorContainer } from '../../src/projector/queries/visitor-set-rows.ts';
import { foldPendingRollups } from '../../src/reports/rollup/fold-pending.ts';
import { moveStagingLog } from '../../src/reports/rollup/staging-log.ts';
import { chunkOf, containerMembers, lowOf } from '../../src/projector/rollup/visitor-container.ts';
import { readRollups } from '../../src/reports/read/rollup-grouped.ts';
import { makeTempDir } from '../_setup.ts';
import { enrichedPageview, openBlogDatabase } from '../storage-fixtures.ts';

/** A visit from Google, then (in another commit) a late earlier event without a referrer: the visit's first event,
 * and so its source, changes, and the visitor leaves the Google set of that day. */
function leaveGoogleSet() {
  const db = openBlogDatabase();
  const tenOClock = Date.UTC(2026, 10, 2, 10);
  storeGroup(db, [{ events: [enrichedPageview({ tsMs: tenOClock, referrer: 'https://www.google.com/' })], quarantined: [] }], tenOClock);
  const googleSource = (db.prepare('SELECT source FROM sessions').get() as { source: string }).source;
  storeGroup(db, [{ events: [enrichedPageview({ tsMs: tenOClock - 10 * 60_000, referrer: null })], quarantined: [] }], tenOClock);
  const day = dayOf(tenOClock);
  const visitorsFrom = (source: string, days: [number, number]) => {
    const report = readRollups(db, {
      selection: { siteIds: ['blog'], workspaceId: 'w1', range: { fromDay: days[0], toDay: days[1] }, filters: {}, withInternal: false },
      dim: Dim.source,
      values: [source],
      grouping: 'value',
    });
    return report.visitorsOf([source]).get(source);
  };
  return { db, googleSource, day, tenOClock, visitorsFrom };
}

describe('the staging log', () => {
  it('never shows a visitor whose later logged removal is still waiting, however far the log was moved and folded', () => {
    for (const fold of [false, true]) {
      const { db, googleSource, day, visitorsFrom } = leaveGoogleSet();
      expect(listSiteStagingLog(db, 'blog')).toHaveLength(2);
      expect(visitorsFrom(googleSource, [day, day])).toBe(0);
      // Move the first commit's row only (and maybe fold it): its addition must not reappear.
      inWriteTransaction(db, () => moveStagingLog(db, 1));
      while (fold && inWriteTransaction(db, () => foldPendingRollups(db, 10_000))) {
        // fold everything staged
      }
      expect(listSiteStagingLog(db, 'blog')).toHaveLength(1);
      expect(visitorsFrom(googleSource, [day, day])).toBe(0);
      expect(visitorsFrom(googleSource, [day - 1, day + 1])).toBe(0);
      inWriteTransaction(db, () => moveStagingLog(db, 1_000));
      expect(visitorsFrom(googleSource, [day, day])).toBe(0);
      db.close();
    }
  });

  it('moves no addition that a later logged removal takes back into the staged tables or the stored sets', () => {
    const { db, googleSource, day } = leaveGoogleSet();
    expect((db.prepare('SELECT source FROM sessions').get() as { source: string }).source).not.toBe(googleSource);
    // Move the first commit's row only and fold everything staged, then move the second.
    expect(inWriteTransaction(db, () => moveStagingLog(db, 1))).toEqual({ entries: expect.any(Number), more: true });
    while (inWriteTransaction(db, () => foldPendingRollups(db, 10_000))) {
      // fold everything staged
    }
    const vid = findVisitorNumber(db, 'blog', 'anon-1')!;
    const valueId = findValueId(db, 'blog', Dim.source, googleSource)!;
    const address = { site_id: 'blog', dim: Dim.source, grain: Grain.day, period: day, internal: 0, value_id: valueId, chunk: chunkOf(vid) };
    const members = () => {
      const container = readVisitorContainer(db, address);
      return container ? containerMembers(container) : [];
    };
    expect(members()).not.toContain(lowOf(vid));
    inWriteTransaction(db, () => moveStagingLog(db, 1_000));
    expect(listSiteStagingLog(db, 'blog')).toHaveLength(0);
    expect(members()).not.toContain(lowOf(vid));
    db.close();
  });

  it('logs a visitor joining a set again after a commit took it out (the writer remembers who is in which set)', () => {
    const { db, googleSource, day, tenOClock, visitorsFrom } = leaveGoogleSet();
    expect(visitorsFrom(googleSource, [day, day])).toBe(0);
    // A new visit from Google the same afternoon: the visitor is back in the day's Google set.
    const twoOClock = tenOClock + 4 * 3_600_000;
    storeGroup(db, [{ events: [enrichedPageview({ tsMs: twoOClock, referrer: 'https://www.google.com/' })], quarantined: [] }], twoOClock);
    expect(visitorsFrom(googleSource, [day, day])).toBe(1);
    inWriteTransaction(db, () => moveStagingLog(db, 1_000));
    while (inWriteTransaction(db, () => foldPendingRollups(db, 10_000))) {
      // fold everything staged
    }
    expect(visitorsFrom(googleSource, [day, day])).toBe(1);
    // Another Google event in that visit: the visitor is known to be in the set, nothing more is logged for it.
    storeGroup(db, [{ events: [enrichedPageview({ tsMs: twoOClock + 60_000, referrer: 'https://www.google.com/' })], quarantined: [] }], twoOClock);
    const [latest] = listSiteStagingLog(db, 'blog');
    expect(JSON.parse(latest!.body).a).toEqual([]);
    expect(visitorsFrom(googleSource, [day, day])).toBe(1);
    db.close();
  });

  it('keeps the removals of a log written before schema 6 when upgrading, in their own column', () => {
    const path = join(makeTempDir(), 'sightline.db');
    const old = new Database(path);
    for (const section of schemaSections.filter((section) => section.version <= 5)) old.exec(section.sql);
    old.pragma('user_version = 5');
    const insert = old.prepare('INSERT INTO report_staging_log (site_id, body) VALUES (?, ?)');
    insert.run('blog', JSON.stringify({ c: [[1, 0, 20_000, 3, 1]], a: [[1, 3, 0, 20_000, 7]], r: [] }));
    insert.run('blog', JSON.stringify({ c: [], a: [], r: [[1, 3, 0, 20_000, 7]] }));
    old.close();
    const db = openDatabase(path);
    const rows = listSiteStagingLog(db, 'blog');
    expect(rows.map(({ body, removals }) => ({ body: JSON.parse(body), removals }))).toEqual([
      { body: { c: [[1, 0, 20_000, 3, 1]], a: [[1, 3, 0, 20_000, 7]] }, removals: null },
      { body: { c: [], a: [] }, removals: '[[1,3,0,20000,7]]' },
    ]);
    db.close();
  });
});
