// kill -9 under load: the real bundled server, as a child process, takes concurrent POST /events and is killed with
// SIGKILL after a few hundred acknowledgements while requests are in flight and its projector (on its own thread,
// a batch every 100 ms) derives visits and rollups from them. Restarted on the same DATA_DIR, it holds every
// acknowledged event exactly once, still dedups them, its projector resumes from its saved position so every
// report equals a recomputation over the raw events, and it drains and exits 0 on SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeEvent } from '../_setup.ts';
import { ensureBuilt, readDatabase, type ServerProcess, startCli, stopIfRunning } from '../cli/cli-helpers.ts';
import { naiveLegacySessions, naivePages, naiveSummary } from '../reports/naive-reports.ts';

const adminToken = 'crash-test-admin-token-0123456789';
const siteId = 'crash-site';
const concurrentLoops = 16;
/** The kill comes when this many requests have been acknowledged: a count, never a duration. */
const acknowledgementsBeforeKill = 300;
const readyLine = /listening on (http:\/\/\S+)/;
// A browser's user agent: undici's own is taken for a bot, and bots form no visits (the reports would all be 0).
const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-crash-'));
const started: ServerProcess[] = [];

// Timeouts are safety nets for a hung process; nothing here asserts a duration.
vi.setConfig({ testTimeout: 180_000 });
beforeAll(ensureBuilt, 180_000);
afterEach(async () => {
  for (const server of started.splice(0)) await stopIfRunning(server);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function serve(dataDir: string): Promise<{ server: ServerProcess; url: string }> {
  const server = startCli(['serve', '--port', '0'], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000' });
  started.push(server);
  const url = (await server.waitForOutput(readyLine))[1]!;
  return { server, url };
}

async function call(url: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': browser };
  const response = await fetch(url + path, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

interface LoadOutcome {
  /** Ids of events whose request was answered 202 (before or after the kill signal went out). */
  acknowledged: Set<string>;
  /** Ids of every event sent, answered or not. */
  sent: Set<string>;
  acknowledgedBatches: Record<string, unknown>[][];
  /** Requests of the other loops still unanswered when SIGKILL was sent. */
  inFlightAtKill: number;
  /** Requests that failed with a connection error after the kill: expected, and not counted. */
  lostRequests: number;
}

/** Concurrent loops of POST /events (1 to 5 events each); SIGKILL when the acknowledgement count is reached. */
async function loadUntilKilled(url: string, server: ServerProcess): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { acknowledged: new Set(), sent: new Set(), acknowledgedBatches: [], inFlightAtKill: 0, lostRequests: 0 };
  let killed = false;
  let inFlight = 0;
  let requestNumber = 0;
  const unexpected: string[] = [];

  const loop = async () => {
    while (!killed) {
      // A few visitors with several events each, so visits span requests (and projector batches) and the kill.
      const events = Array.from({ length: 1 + (requestNumber++ % 5) }, (_, index) => makeEvent(siteId, { anon_id: `visitor-${(requestNumber + index) % 40}`, url: `https://example.com/p${index}` }));
      for (const event of events) outcome.sent.add(event.id as string);
      inFlight++;
      try {
        const answer = await call(url, '/events', siteId, events);
        if (answer.status !== 202 || answer.body.accepted !== events.length) {
          unexpected.push(`${answer.status} ${JSON.stringify(answer.body)}`);
          killed = true;
          continue;
        }
        for (const event of events) outcome.acknowledged.add(event.id as string);
        outcome.acknowledgedBatches.push(events);
        if (outcome.acknowledgedBatches.length === acknowledgementsBeforeKill) {
          killed = true;
          outcome.inFlightAtKill = inFlight - 1;
          server.child.kill('SIGKILL');
        }
      } catch (error) {
        if (!killed) {
          unexpected.push(String(error));
          killed = true;
        } else {
          outcome.lostRequests++;
        }
      } finally {
        inFlight--;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrentLoops }, loop));
  expect(unexpected).toEqual([]);
  return outcome;
}

describe('kill -9 under load', () => {
  it('keeps every acknowledged event exactly once across a restart, and the restarted server exits 0 on SIGTERM', async () => {
    const dataDir = join(scratch, 'data');
    const first = await serve(dataDir);
    expect((await call(first.url, '/workspaces', adminToken, { name: 'Crash', slug: 'crash' })).status).toBe(201);
    expect((await call(first.url, '/workspaces/crash/sites', adminToken, { id: siteId, name: 'Crash site' })).status).toBe(201);

    const load = await loadUntilKilled(first.url, first.server);
    expect(await first.server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(load.acknowledgedBatches.length).toBeGreaterThanOrEqual(acknowledgementsBeforeKill);
    // The other loops each had a request out when the signal went: the kill landed mid-traffic.
    expect(load.inFlightAtKill).toBe(concurrentLoops - 1);

    const second = await serve(dataDir);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    // Dedup survives the crash: an acknowledged batch sent again is all duplicates.
    const resent = load.acknowledgedBatches[0]!;
    expect(await call(second.url, '/events', siteId, resent)).toEqual({ status: 202, body: { accepted: 0, bots: 0, duplicates: resent.length, quarantined: 0, dropped: 0 } });

    const stored = readDatabase(join(dataDir, 'sightline.db'), (db) => ({
      integrity: db.pragma('integrity_check', { simple: true }),
      counts: new Map((db.prepare('SELECT id, count(*) AS n FROM events WHERE site_id = ? GROUP BY id').all(siteId) as { id: string; n: number }[]).map((row) => [row.id, row.n])),
      total: (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
    }));
    expect(stored.integrity).toBe('ok');
    const notExactlyOnce = [...load.acknowledged].filter((id) => stored.counts.get(id) !== 1);
    expect(notExactlyOnce).toEqual([]);
    expect([...stored.counts].filter(([, n]) => n !== 1)).toEqual([]);
    // Events whose answer the kill swallowed may be there too, but nothing that was never sent.
    expect([...stored.counts.keys()].filter((id) => !load.sent.has(id))).toEqual([]);
    expect(stored.total).toBeGreaterThanOrEqual(load.acknowledged.size);

    // The restarted projector resumed from its saved position: a read waits for it, and every report equals a
    // recomputation over the stored events (nothing counted twice, nothing missed).
    const today = new Date().toISOString().slice(0, 10);
    const range = `from=${today}&to=${today}`;
    const summary = await call(second.url, `/v1/sites/${siteId}/reports/summary-v2?${range}`, adminToken);
    const pages = await call(second.url, `/v1/sites/${siteId}/reports/pages-v2?${range}&limit=200`, adminToken);
    const sessions = await call(second.url, `/v1/sites/${siteId}/sessions?${range}`, adminToken);
    expect(summary.body.meta.completeness).toEqual({ complete: false, reason: expect.stringContaining('current UTC day') });
    const query = { siteIds: [siteId], from: today, to: today };
    const expected = readDatabase(join(dataDir, 'sightline.db'), (db) => ({
      summary: naiveSummary(db, query),
      pages: naivePages(db, query),
      sessions: naiveLegacySessions(db, query),
    }));
    expect(summary.body.data).toEqual(expected.summary);
    expect(expected.summary.visitors).toBeGreaterThan(0);
    expect(pages.body.data.rows).toEqual(expected.pages);
    expect(sessions.body).toEqual(expected.sessions);
    console.info(
      `crash: ${load.acknowledgedBatches.length} requests (${load.acknowledged.size} events) acknowledged, ` +
        `${load.lostRequests} requests lost to the kill, ${load.sent.size} events sent, ${stored.total} stored`,
    );

    second.server.child.kill('SIGTERM');
    expect(await second.server.exited).toEqual({ code: 0, signal: null });
  });
});
