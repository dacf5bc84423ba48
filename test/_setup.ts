// Test harness: a real SQLite file in a temp dir and the real app on a real port (0), exercised over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { H3 } from 'h3';
import { createApp, type CreateAppOptions, type SightlineApp } from '../src/app.ts';
import type { Clock } from '../src/clock.ts';
import { loadConfig, type Config } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import { openDatabase, type Db } from '../src/db/open.ts';
import type { AnswerChecker } from '../src/openapi/answer-check.ts';
import { createHttpServer, databasePath } from '../src/server.ts';
import { type CheckedRequest, createCheckedRequest, fetchAnswerChecker } from './_http.ts';

export const testAdminToken = 'test-admin-token-0123456789abcdef';

export interface TestServer {
  url: string;
  db: Db;
  dataDir: string;
  app: SightlineApp;
  config: Config;
  /** Checks answers against the server's own GET /v1/openapi.json; `request` runs it on every answer. */
  answers: AnswerChecker;
  request: CheckedRequest;
  /** Waits until the projector has passed every event committed so far (derived tables are then up to date). */
  projected(): Promise<void>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  extend?: (app: H3, context: AppContext) => void;
  dataDir?: string;
  ingest?: CreateAppOptions['ingest'];
  /** 'manual': the projector runs only when the test calls server.app.projection.projectNow(). */
  projector?: CreateAppOptions['projector'];
  projectionWaitMs?: number;
  /** Where analysis computes, its caps and queue, and a test gate (CreateAppOptions['analysis']). */
  analysis?: CreateAppOptions['analysis'];
  /** The retention purge's timer (tests run passes with app.retention.runNow()). */
  retentionPurge?: CreateAppOptions['retentionPurge'];
  /** The outbound webhook delivery worker's options (CreateAppOptions['deliveries']). */
  deliveries?: CreateAppOptions['deliveries'];
  clickhouseShipping?: CreateAppOptions['clickhouseShipping'];
  /** Outbound mail's options: the outbox's polling, the report schedule's timer (CreateAppOptions['mail']). */
  mail?: CreateAppOptions['mail'];
}

const temporaryDirectories: string[] = [];

/** A fresh directory under the OS temp dir, removed after the test file (test/cleanup.ts). */
export function makeTempDir(prefix = 'sightline-test-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporaryDirectories.push(directory);
  return directory;
}

export function removeTempDirs(): void {
  for (const directory of temporaryDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? makeTempDir();
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: testAdminToken, ...options.env });
  const db = openDatabase(databasePath(dataDir));
  const app = createApp({
    db,
    config,
    adminToken: testAdminToken,
    clock: options.clock,
    extend: options.extend,
    ingest: options.ingest,
    projector: options.projector,
    // A read waits for the projector 2 s at most in the product; the projector thread runs at the lowest priority, and
    // on a loaded machine (the suite's forks, a benchmark beside it) it can take longer than that to project what a
    // test just sent, which would then read as missing. A test is never decided by that timing: the wait is 30 s unless
    // the test asks for its own (the tests of the bound itself), drives the projector by hand, or reads through
    // ClickHouse (whose reads' wait and 503 are tested as configured).
    projectionWaitMs: options.projectionWaitMs ?? (options.projector === 'manual' || options.env?.CLICKHOUSE_URL ? undefined : 30_000),
    analysis: options.analysis,
    retentionPurge: options.retentionPurge,
    deliveries: options.deliveries,
    clickhouseShipping: options.clickhouseShipping,
    mail: options.mail,
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const answers = await fetchAnswerChecker(url);

  const request = createCheckedRequest({ url: () => url, answers, defaultToken: testAdminToken });

  return {
    url,
    db,
    dataDir,
    app,
    config,
    answers,
    request,
    projected: async () => {
      if (!(await app.projection.catchUp(30_000))) throw new Error('the projector did not catch up within 30 s');
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
      db.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates a workspace (and optionally sites and a key) through the API; returns what later steps need. */
export async function seedWorkspace(
  server: TestServer,
  slug: string,
  options: { sites?: string[]; scopes?: string[] } = {},
): Promise<{ slug: string; id: string; key?: string; keyId?: string }> {
  const created = await server.request('POST', '/workspaces', { body: { name: `Workspace ${slug}`, slug } });
  if (created.status !== 201) throw new Error(`seed workspace ${slug}: ${created.status} ${created.text}`);
  for (const site of options.sites ?? []) {
    const response = await server.request('POST', `/workspaces/${slug}/sites`, { body: { id: site, name: `Site ${site}` } });
    if (response.status !== 201) throw new Error(`seed site ${site}: ${response.status} ${response.text}`);
  }
  if (!options.scopes) return { slug, id: created.body.id };
  const key = await server.request('POST', `/workspaces/${slug}/keys`, { body: { label: 'seed', scopes: options.scopes } });
  if (key.status !== 201) throw new Error(`seed key: ${key.status} ${key.text}`);
  return { slug, id: created.body.id, key: key.body.plaintext, keyId: key.body.id };
}

/**
 * Row counts of every table (to prove a refused request wrote nothing), once the projector has passed every event committed so far: it writes derived tables
 * on its own thread, so counts taken while it runs would depend on timing.
 */
export async function settledTableCounts(server: Pick<TestServer, 'db' | 'projected'>): Promise<Record<string, number>> {
  await server.projected();
  return tableCounts(server.db);
}

/** Both files: sightline.db's tables by name, the event log's as eventlog.<name>. */
function tableCounts(db: Db): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const schema of ['main', 'eventlog']) {
    const tables = db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[];
    for (const { name } of tables) {
      const key = schema === 'main' ? name : `${schema}.${name}`;
      counts[key] = (db.prepare(`SELECT count(*) AS n FROM ${schema}."${name}"`).get() as { n: number }).n;
    }
  }
  return counts;
}

let eventCounter = 0;

/** A valid wire event for `siteId` (a fresh UUID each call), with `overrides` merged in. */
export function makeEvent(siteId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  eventCounter++;
  return {
    id: crypto.randomUUID(),
    site_id: siteId,
    anon_id: `anon-${eventCounter}`,
    ts: new Date().toISOString(),
    type: 'pageview',
    url: 'https://example.com/page',
    ...overrides,
  };
}
