// The shipped server as a user starts it: `node bin/sightline serve --port 0` (the bundle in dist/, with its projector
// thread and inline commits as in production) on a fresh DATA_DIR, driven only over HTTP. Not a test file itself.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, vi } from 'vitest';
import { readAdminTokenFile } from '../../src/admin/admin-token.ts';
import type { AnswerChecker } from '../../src/openapi/answer-check.ts';
import { type CheckedRequest, createCheckedRequest, fetchAnswerChecker } from '../_http.ts';
import { ensureBuilt, type Launch, type ServerProcess, startCli, stopIfRunning } from '../cli/cli-helpers.ts';

export const e2eAdminToken = 'e2e-admin-token-0123456789abcdef';

/** A desktop Firefox: curl's and undici's default user agents may be taken for bots, which are never counted or streamed. */
export const browserUserAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

const readyLine = /listening on (http:\/\/\S+)/;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What `stop()` must resolve with: SIGTERM drains, closes the database and exits 0. */
export const cleanExit: ProcessExit = { code: 0, signal: null };

export interface ShippedServer {
  /** Where the running process listens; a restart listens on another port. */
  readonly url: string;
  readonly dataDir: string;
  readonly adminToken: string;
  /** The server's own GET /v1/openapi.json, compiled. */
  readonly answers: AnswerChecker;
  /** JSON over HTTP, the admin token unless told otherwise; every answer is checked against the published document. */
  readonly request: CheckedRequest;
  /** Milliseconds from the current process's spawn to its ready line (printed by test/binary/, never asserted). */
  readonly readyAfterMs: number;
  /** Everything the current process printed, for failure messages. */
  output(): string;
  /** Sends SIGTERM and resolves with the exit once the process is gone. */
  stop(): Promise<ProcessExit>;
  /** Starts a new process on the same DATA_DIR (after `stop`) and resolves when it listens. */
  restart(): Promise<void>;
}

/**
 * Starts shipped servers and cleans up after them: `disposeAll` (for afterEach) kills what still runs and removes
 * the data directories, whether the test passed or not. Run `ensureBuilt` (cli-helpers) once before the first start.
 * `launch` runs another executable (the single executable, test/binary/) instead of `node bin/sightline`.
 * @example const servers = shippedServers(); afterEach(() => servers.disposeAll()); const server = await servers.start();
 */
export function shippedServers(launch: Launch = {}): { start(variables?: Record<string, string | undefined>): Promise<ShippedServer>; disposeAll(): Promise<void> } {
  const processes: ServerProcess[] = [];
  const dataDirs: string[] = [];

  /** `variables` adds to the environment; `{ ADMIN_TOKEN: undefined }` lets the server generate its token, as on a first start. */
  const startServer = async (variables: Record<string, string | undefined> = {}): Promise<ShippedServer> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-'));
    dataDirs.push(dataDir);
    // Reads wait up to 30 s for the projector (the product waits 2 s): on a loaded test machine the projector can take
    // longer than 2 s to pass an event, and the tests assert what a read counts, not how soon (READ_WAIT_MS).
    const environment = { DATA_DIR: dataDir, ADMIN_TOKEN: e2eAdminToken, READ_WAIT_MS: '30000', ...variables };
    let current!: ServerProcess;
    let url = '';
    let readyAfterMs = 0;
    const start = async () => {
      const spawnedAt = performance.now();
      current = startCli(['serve', '--port', '0'], environment, launch);
      processes.push(current);
      url = (await current.waitForOutput(readyLine))[1]!;
      readyAfterMs = performance.now() - spawnedAt;
    };
    await start();
    const adminToken = environment.ADMIN_TOKEN ?? readAdminTokenFile(dataDir)!;
    const answers = await fetchAnswerChecker(url);
    return {
      get url() {
        return url;
      },
      get readyAfterMs() {
        return readyAfterMs;
      },
      dataDir,
      adminToken,
      answers,
      request: createCheckedRequest({ url: () => url, answers, defaultToken: adminToken }),
      output: () => `stdout: ${current.stdout}\nstderr: ${current.stderr}`,
      stop: async () => {
        current.child.kill('SIGTERM');
        return current.exited;
      },
      restart: start,
    };
  };

  const disposeAll = async () => {
    for (const serverProcess of processes.splice(0)) await stopIfRunning(serverProcess);
    for (const dataDir of dataDirs.splice(0)) rmSync(dataDir, { recursive: true, force: true });
  };
  return { start: startServer, disposeAll };
}

/**
 * Creates a workspace and one site through the admin API; the site id is also the site's ingest bearer.
 * @example await createSite(server, 'shop');
 */
export async function createSite(server: ShippedServer, siteId: string): Promise<void> {
  const workspace = await server.request('POST', '/v1/workspaces', { body: { name: `Workspace of ${siteId}`, slug: `ws-${siteId}` } });
  expect(workspace.status, workspace.text).toBe(201);
  const site = await server.request('POST', `/v1/workspaces/ws-${siteId}/sites`, { body: { id: siteId, name: `Site ${siteId}` } });
  expect(site.status, site.text).toBe(201);
}

/**
 * A wire event of `siteId` (a fresh id, now, a pageview) with `fields` merged in. Its context.user_agent is a
 * browser's: honoured on /s2s/events, ignored on /events (where the request's User-Agent counts).
 */
export function browserEvent(siteId: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    site_id: siteId,
    anon_id: 'visitor-1',
    ts: new Date().toISOString(),
    type: 'pageview',
    url: 'https://shop.example/',
    context: { user_agent: browserUserAgent },
    ...fields,
  };
}

/**
 * POSTs `events` as one body to `endpoint` (/v1/events or /v1/s2s/events) with the site bearer and a browser's
 * User-Agent; expects a 202 that accepted them all and returns them.
 */
export async function ingest(server: ShippedServer, endpoint: '/v1/events' | '/v1/s2s/events', siteId: string, events: Record<string, unknown>[]) {
  const answer = await server.request('POST', endpoint, { token: siteId, body: events, headers: { 'user-agent': browserUserAgent } });
  expect(answer.status, answer.text).toBe(202);
  expect(answer.body).toMatchObject({ accepted: events.length, duplicates: 0 });
  return events;
}

/**
 * The UTC date `offsetDays` from today, as the reports' from/to take it.
 * @example utcDate(-1) // yesterday, e.g. '2026-11-23'
 */
export function utcDate(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The shipped servers of one test file, with its hooks: the bundle built once before the file, every server stopped
 * after each test (then `afterEachTest`), and a safety net for a hung process (nothing asserts a duration).
 * @example const servers = useShippedServers(); it('…', async () => { const server = await servers.start(); });
 */
export function useShippedServers(options: { testTimeout?: number; afterEachTest?: () => unknown } = {}): ReturnType<typeof shippedServers> {
  const servers = shippedServers();
  vi.setConfig({ testTimeout: options.testTimeout ?? 60_000 });
  beforeAll(ensureBuilt, 120_000);
  afterEach(async () => {
    await servers.disposeAll();
    await options.afterEachTest?.();
  });
  return servers;
}

/**
 * Timestamps on one UTC day.
 * @example timesOn('2026-11-23')('09:00:00') // '2026-11-23T09:00:00Z'
 */
export function timesOn(day: string): (time: string) => string {
  return (time) => `${day}T${time}Z`;
}
