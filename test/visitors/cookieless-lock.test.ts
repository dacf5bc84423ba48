// Cookieless events while another connection holds sightline.db's write lock (a projector batch far behind, an
// administrative write, the CLI): the daily salt comes from memory, so the event is acknowledged and the server
// answers other requests while the lock is still held (issue 24: the salt's write waited 5 s on the HTTP thread,
// froze the server, then answered 500). The salts the lock kept from being written are stored, and the old ones
// deleted, by the next maintenance once the lock is free, under the ids already given out; the day still rotates.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const dayMs = 24 * 60 * 60 * 1000;

describe('cookieless visitors while sightline.db is locked by another connection', () => {
  let server: TestServer;
  let lock: Database.Database;
  const clock = manualClock('2026-03-01T12:00:00.000Z');
  const salts = () => (server.db.prepare('SELECT day FROM visitor_salts ORDER BY day').all() as { day: string }[]).map((row) => row.day);

  /** A cookieless pageview of one browser (ts: now unless given); answers the status and the stored anon_id. */
  async function pageview(ts = clock.iso()) {
    const event = { id: crypto.randomUUID(), site_id: 'fresh', ts, type: 'pageview', url: 'https://example.com/' };
    const response = await server.request('POST', '/events', { token: 'fresh', body: event, headers: { 'user-agent': firefox } });
    const row = server.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(event.id) as { anon_id: string } | undefined;
    return { status: response.status, anonId: row?.anon_id };
  }

  beforeAll(async () => {
    // The projector runs only when told: the lock below is the one contention, held as long as the test says.
    server = await startTestServer({ clock, projector: 'manual' });
    await seedWorkspace(server, 'acme', { sites: ['fresh'] });
    lock = new Database(join(server.dataDir, 'sightline.db'));
  });
  afterEach(() => {
    if (lock.inTransaction) lock.exec('ROLLBACK');
  });
  afterAll(async () => {
    lock.close();
    await server.close();
  });

  it('acknowledges, answers /healthz, rotates at midnight, then stores the salts it used and deletes the old ones', async () => {
    // Two days on: neither the day's salt nor the next day's is stored yet, and 03-01's is past its time.
    clock.advance(2 * dayMs);
    lock.exec('BEGIN IMMEDIATE');
    lock.prepare("UPDATE workspaces SET name = name WHERE slug = 'acme'").run();

    const first = await pageview();
    const health = await server.request('GET', '/healthz', { token: null });
    const again = await pageview();
    // Answered while the lock was held all along: nothing on the HTTP thread waited for it.
    expect(lock.inTransaction).toBe(true);
    expect([first.status, health.status, again.status]).toEqual([202, 200, 202]);
    expect(first.anonId).toMatch(/^cl_[A-Za-z0-9_-]{22}$/);
    expect(again.anonId).toBe(first.anonId);
    // Nothing could be written or deleted meanwhile (the start stored its day's salt and the next day's).
    expect(salts()).toEqual(['2026-03-01', '2026-03-02']);

    // Midnight, the lock still held: a new visitor id; a late event of yesterday keeps yesterday's.
    clock.advance(dayMs);
    const nextDay = await pageview();
    const late = await pageview(new Date(clock.now() - dayMs).toISOString());
    expect(lock.inTransaction).toBe(true);
    expect([nextDay.status, late.status]).toEqual([202, 202]);
    expect(nextDay.anonId).not.toBe(first.anonId);
    expect(late.anonId).toBe(first.anonId);

    lock.exec('ROLLBACK');
    // The minute's maintenance: today's and tomorrow's salts stored, the older ones deleted.
    server.app.ingest.cookieless.rotate();
    expect(salts()).toEqual(['2026-03-04', '2026-03-05']);
    // The stored salt is the one the day's ids were made with, across a restart too.
    expect((await pageview()).anonId).toBe(nextDay.anonId);
    const restarted = await startTestServer({ clock, projector: 'manual', dataDir: server.dataDir });
    try {
      const event = { id: crypto.randomUUID(), site_id: 'fresh', ts: clock.iso(), type: 'pageview', url: 'https://example.com/' };
      expect((await restarted.request('POST', '/events', { token: 'fresh', body: event, headers: { 'user-agent': firefox } })).status).toBe(202);
      expect(restarted.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(event.id)).toEqual({ anon_id: nextDay.anonId });
    } finally {
      await restarted.close();
    }
  });

  it('keeps the first salt stored when another process stored the day’s before this one could', async () => {
    clock.advance(2 * dayMs);
    const day = clock.iso().slice(0, 10);
    lock.exec('BEGIN IMMEDIATE');
    const inMemory = await pageview();
    expect(inMemory.status).toBe(202);
    // Another server on the same DATA_DIR wins the race for the day's row.
    lock.prepare('INSERT INTO visitor_salts (day, salt, created_at) VALUES (?, ?, ?)').run(day, Buffer.alloc(32, 7), clock.iso());
    lock.exec('COMMIT');
    server.app.ingest.cookieless.rotate();
    const adopted = await pageview();
    expect(adopted.status).toBe(202);
    expect(adopted.anonId).not.toBe(inMemory.anonId);
    expect(server.db.prepare('SELECT salt FROM visitor_salts WHERE day = ?').get(day)).toEqual({ salt: Buffer.alloc(32, 7) });
  });
});
