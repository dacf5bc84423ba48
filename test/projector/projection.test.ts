// The contract between the write path and the reads (CONTRACT sections 2 and 5), with a projector that runs only
// when the test says so: event-level reads see an event as soon as it is acknowledged; reads of derived data wait,
// bounded, and past the wait answer with what is projected and say so (projection_lag, freshness.projected_through);
// a read right after a 202 counts the event once the projector can run; seqs are never reused after the newest
// events are deleted, so cursors and the projector's position never skip one; /metrics shows the projector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send, wireEvent } from '../events/_helpers.ts';

const clock = manualClock('2026-05-10T12:00:00.000Z');
const day = '2026-05-10';
const range = `from=${day}&to=${day}`;

describe('a projector that lags', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Manual: nothing is projected until the test calls projectNow; reads give up waiting after 50 ms.
    server = await startTestServer({ clock, projector: 'manual', projectionWaitMs: 50 });
    await seedWorkspace(server, 'lagging', { sites: ['lag'] });
  });
  afterAll(() => server.close());

  it('event-level reads see an acknowledged event at once; reports say they lag, then count it', async () => {
    const [first] = await send(server, 'lag', [wireEvent('lag', { ts: clock.iso(), anon_id: 'ada', user_id: 'user-ada', url: 'https://s.example/a' })]);
    const list = await server.request('GET', `/v1/sites/lag/events/list-v2?${range}`);
    expect(list.body.data.events.map((event: { id: string }) => event.id)).toEqual([first!.id]);
    expect(list.body.meta.completeness.reason).not.toBe('projection_lag');
    const overview = await server.request('GET', `/v1/sites/lag/events/overview-v2?${range}`);
    expect(overview.body.data.total).toBe(1);
    // The timeline's bindings come from the log's tail the projector has not reached.
    const timeline = await server.request('GET', '/v1/sites/lag/users/user-ada/timeline');
    expect(timeline.status).toBe(200);
    expect(timeline.body.events.map((event: { id: string }) => event.id)).toEqual([first!.id]);

    const lagging = await server.request('GET', `/v1/sites/lag/reports/summary-v2?${range}`);
    expect(lagging.status).toBe(200);
    expect(lagging.body.meta.completeness).toEqual({ complete: false, reason: 'projection_lag' });
    expect(lagging.body.meta.warnings).toContainEqual(expect.stringContaining('projected_through'));
    expect(lagging.body.meta.freshness).toEqual({ watermark: clock.iso(), projected_through: null });
    expect(lagging.body.data).toMatchObject({ visitors: 0, events: 0 });
    // A visit filter needs the visit, which the projector derives: that read waits and says it lags too.
    const filtered = await server.request('GET', `/v1/sites/lag/events/list-v2?${range}&source=direct`);
    expect(filtered.body.meta.completeness).toEqual({ complete: false, reason: 'projection_lag' });
    expect(filtered.body.data.events).toEqual([]);

    expect(server.app.projection.projectNow()).toMatchObject({ events: 1 });
    const counted = await server.request('GET', `/v1/sites/lag/reports/summary-v2?${range}`);
    expect(counted.body.meta.completeness).toEqual({ complete: false, reason: expect.stringContaining('current UTC day') });
    expect(counted.body.meta.freshness).toEqual({ watermark: clock.iso(), projected_through: clock.iso() });
    expect(counted.body.data).toMatchObject({ visitors: 1, visits: 1, pageviews: 1, events: 1 });
    const visitFiltered = await server.request('GET', `/v1/sites/lag/events/list-v2?${range}&source=direct`);
    expect(visitFiltered.body.data.events.map((event: { id: string }) => event.id)).toEqual([first!.id]);
  });

  it('passes the seqs of events deleted before it reached them, so reads do not wait for them', async () => {
    server.app.projection.projectNow();
    const [gone] = await send(server, 'lag', [wireEvent('lag', { ts: clock.iso() })]);
    const seq = (server.db.prepare('SELECT seq FROM events WHERE id = ?').get(gone!.id) as { seq: number }).seq;
    // Deleted before the projector ran (a site or GDPR deletion of the newest events).
    server.db.prepare('DELETE FROM events WHERE seq = ?').run(seq);
    expect(server.app.projection.projectNow()).toEqual({ events: 0, position: seq, oldestReceivedAt: null });
    const summary = await server.request('GET', `/v1/sites/lag/reports/summary-v2?${range}`);
    expect(summary.body.meta.completeness.reason).not.toBe('projection_lag');
  });

  it('shows the projector on /metrics: lag in events, events read, batch durations', async () => {
    await send(server, 'lag', [wireEvent('lag', { ts: clock.iso() }), wireEvent('lag', { ts: clock.iso() })]);
    const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec((await server.request('GET', '/metrics')).text)?.[1]);
    expect(await metric('sightline_projector_lag_events')).toBe(2);
    const read = await metric('sightline_projector_events_total');
    const batches = await metric('sightline_projector_batch_ms_count');
    server.app.projection.projectNow();
    expect(await metric('sightline_projector_lag_events')).toBe(0);
    expect(await metric('sightline_projector_events_total')).toBe(read + 2);
    expect(await metric('sightline_projector_batch_ms_count')).toBe(batches + 1);
  });
});

describe('a projector that keeps up', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
    await seedWorkspace(server, 'keeping', { sites: ['up'] });
  });
  afterAll(() => server.close());

  it('counts an event in a report read right after its 202', async () => {
    for (let index = 1; index <= 5; index++) {
      await send(server, 'up', [wireEvent('up', { ts: clock.iso(), anon_id: `v${index}` })]);
      const summary = await server.request('GET', `/v1/sites/up/reports/summary-v2?${range}`);
      expect(summary.body.data).toMatchObject({ visitors: index, events: index });
      expect(summary.body.meta.completeness.reason).not.toBe('projection_lag');
    }
  });

  it('never reuses the seq of deleted newest events: cursors and the projector position skip nothing', async () => {
    const seqOf = (id: unknown) => (server.db.prepare('SELECT seq FROM events WHERE id = ?').get(id) as { seq: number }).seq;
    const [newest] = await send(server, 'up', [wireEvent('up', { ts: clock.iso(), anon_id: 'deleted' })]);
    // A stream resumed with a cursor at the newest event reads seq > it; the projector has passed it too.
    const opened = await fetch(`${server.url}/v1/sites/up/events/stream-v2`, { headers: { authorization: `Bearer ${server.config.adminToken}` } });
    const firstFrame = new TextDecoder().decode((await opened.body!.getReader().read()).value);
    const cursor = JSON.parse(/data: (.*)/.exec(firstFrame)![1]!).cursor as string;
    await opened.body!.cancel().catch(() => undefined);
    await server.projected();
    // The newest event is deleted (as a GDPR deletion would); the next one must not take its seq.
    const deletedSeq = seqOf(newest!.id);
    server.db.prepare('DELETE FROM events WHERE seq = ?').run(deletedSeq);
    const [after] = await send(server, 'up', [wireEvent('up', { ts: clock.iso(), anon_id: 'after' })]);
    expect(seqOf(after!.id)).toBeGreaterThan(deletedSeq);
    const resumed = await fetch(`${server.url}/v1/sites/up/events/stream-v2?cursor=${encodeURIComponent(cursor)}`, { headers: { authorization: `Bearer ${server.config.adminToken}` } });
    const reader = resumed.body!.getReader();
    let frames = '';
    while (!frames.includes('event: event')) frames += new TextDecoder().decode((await reader.read()).value);
    await resumed.body!.cancel().catch(() => undefined);
    expect(JSON.parse(/event: event\ndata: (.*)/.exec(frames)![1]!).id).toBe(after!.id);
    await server.projected();
    expect(server.db.prepare("SELECT count(*) AS n FROM sessions WHERE site_id = 'up' AND anon_id = 'after'").get()).toEqual({ n: 1 });
  });
});

describe('a projector position past the end of the event log', () => {
  it('drops what was derived and projects the log again (power failure with SYNCHRONOUS=normal, a mismatched restore)', async () => {
    const dataDir = makeTempDir();
    let server = await startTestServer({ clock, dataDir, projector: 'inline' });
    await seedWorkspace(server, 'lost', { sites: ['lost'] });
    await send(server, 'lost', [wireEvent('lost', { ts: clock.iso(), anon_id: 'kept' }), wireEvent('lost', { ts: clock.iso(), anon_id: 'lost' })]);
    await server.projected();
    // The log loses its last commit (its rows and its AUTOINCREMENT counter, as a power failure would roll them back);
    // sightline.db keeps the position that had counted it.
    const lastSeq = (server.db.prepare('SELECT max(seq) AS seq FROM events').get() as { seq: number }).seq;
    server.db.prepare('DELETE FROM events WHERE seq = ?').run(lastSeq);
    server.db.prepare("UPDATE eventlog.sqlite_sequence SET seq = ? WHERE name = 'events'").run(lastSeq - 1);
    await server.close();

    server = await startTestServer({ clock, dataDir, projector: 'inline' });
    try {
      // A minute later than the lost event, which had the same seq: its index row differs from the lost one's.
      await send(server, 'lost', [wireEvent('lost', { ts: new Date(clock.now() + 60_000).toISOString(), anon_id: 'after' })]);
      const summary = await server.request('GET', `/v1/sites/lost/reports/summary-v2?${range}`);
      // Both events of the log are counted (the one that reused the lost seq included), the lost one is not.
      expect(summary.body.data).toMatchObject({ visitors: 2, events: 2 });
      expect(server.db.prepare("SELECT anon_id FROM sessions WHERE site_id = 'lost' ORDER BY anon_id").all()).toEqual([{ anon_id: 'after' }, { anon_id: 'kept' }]);
      // The visitor index was derived again too: one row per stored event, under its own visitor's number (a row
      // left from the lost event would point the reused seq at the wrong visitor).
      const indexed = server.db.prepare(
        'SELECT ve.seq, e.anon_id FROM visitor_events ve JOIN events e ON e.seq = ve.seq JOIN report_visitors v ON v.vid = ve.vid AND v.site_id = e.site_id AND v.anon_id = e.anon_id ORDER BY ve.seq',
      );
      expect(indexed.all()).toEqual(server.db.prepare("SELECT seq, anon_id FROM events WHERE site_id = 'lost' ORDER BY seq").all());
      expect(server.db.prepare('SELECT count(*) AS n FROM visitor_events').get()).toEqual({ n: 2 });
    } finally {
      await server.close();
    }
  });
});
