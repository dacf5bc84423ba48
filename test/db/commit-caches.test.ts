// The writer's commit caches (value ids, visitor numbers) must never outlive the rows behind them: rows deleted by
// another connection or by this one, a request's savepoint rolled back, a group transaction that failed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/db/open.ts';
import { storeGroup } from '../../src/ingest/store-group.ts';
import { registerWriteListener } from '../../src/ingest/write-listeners.ts';
import '../../src/ingest/write-listener-modules.ts';
import { Dim } from '../../src/projector/dimensions.ts';
import { deleteValuesOfSite, findOrInsertValueId, findValueId } from '../../src/projector/queries/value-rows.ts';
import { deleteVisitorNumber, findVisitorNumber } from '../../src/projector/queries/visitor-number-rows.ts';
import { makeTempDir } from '../_setup.ts';
import { enrichedPageview, openBlogDatabase } from '../storage-fixtures.ts';

function store(db: Db, anonId: string, path: string) {
  return storeGroup(db, [{ events: [enrichedPageview({ anonId, path })], quarantined: [] }], Date.now());
}

function openPair(): { writer: Db; main: Db } {
  const path = join(makeTempDir(), 'sightline.db');
  const main = openBlogDatabase(path);
  return { writer: openDatabase(path), main };
}

/** Fails the next event of `anonId` once, in the request's savepoint or (whole: true) in the group's COMMIT. */
const failures = new Map<string, 'request' | 'group'>();
let failGroup = false;
registerWriteListener({
  name: 'test failures',
  onEventStored(_db, event) {
    const how = failures.get(event.anon_id);
    if (!how) return;
    failures.delete(event.anon_id);
    if (how === 'request') throw new Error('this request fails');
    failGroup = true;
  },
  beforeCommit() {
    if (!failGroup) return;
    failGroup = false;
    throw new Error('this group fails');
  },
});

describe('commit caches', () => {
  it('forget value ids another connection deleted', () => {
    const { writer, main } = openPair();
    store(writer, 'anon-1', '/a');
    const first = findValueId(main, 'blog', Dim.path, '/a');
    expect(first).toBeDefined();
    // The site's values are deleted and the same id goes to another value: the writer must not reuse it for /a.
    main.transaction(() => {
      deleteValuesOfSite(main, 'blog');
      expect(findOrInsertValueId(main, 'blog', Dim.path, '/b')).toBe(first);
    })();
    store(writer, 'anon-1', '/a');
    const again = findValueId(main, 'blog', Dim.path, '/a');
    expect(again).toBeDefined();
    expect(again).not.toBe(first);
  });

  it('forget value ids and visitor numbers this connection deleted', () => {
    const { writer } = openPair();
    store(writer, 'anon-1', '/a');
    writer.transaction(() => {
      deleteValuesOfSite(writer, 'blog');
      deleteVisitorNumber(writer, 'blog', 'anon-1');
    })();
    store(writer, 'anon-1', '/a');
    expect(findValueId(writer, 'blog', Dim.path, '/a')).toBeDefined();
    expect(findVisitorNumber(writer, 'blog', 'anon-1')).toBeDefined();
  });

  it('forget visitor numbers another connection deleted', () => {
    const { writer, main } = openPair();
    store(writer, 'anon-1', '/a');
    main.transaction(() => deleteVisitorNumber(main, 'blog', 'anon-1'))();
    store(writer, 'anon-1', '/a');
    expect(findVisitorNumber(main, 'blog', 'anon-1')).toBeDefined();
  });

  it('forget what a rolled-back request wrote', () => {
    const { writer, main } = openPair();
    failures.set('anon-2', 'request');
    const [outcome] = store(writer, 'anon-2', '/c');
    expect(outcome).toEqual({ ok: false, message: 'this request fails' });
    expect(findVisitorNumber(main, 'blog', 'anon-2')).toBeUndefined();
    store(writer, 'anon-2', '/c');
    expect(findVisitorNumber(main, 'blog', 'anon-2')).toBeDefined();
  });

  it('forget what a failed group transaction wrote', () => {
    const { writer, main } = openPair();
    failures.set('anon-3', 'group');
    expect(() => store(writer, 'anon-3', '/d')).toThrow('this group fails');
    expect(findVisitorNumber(main, 'blog', 'anon-3')).toBeUndefined();
    expect(findValueId(main, 'blog', Dim.path, '/d')).toBeUndefined();
    store(writer, 'anon-3', '/d');
    expect(findVisitorNumber(main, 'blog', 'anon-3')).toBeDefined();
    expect(findValueId(main, 'blog', Dim.path, '/d')).toBeDefined();
  });
});
