// The single executable as a user gets it: dist/sightline copied alone into an empty directory (no node_modules, no
// dist/ beside it), its own CLI creating a workspace and a site, its server ingesting an event and answering it in a
// report (the projector thread) and in a funnel (the analysis thread), both threads run from the embedded bundles;
// --version; SIGTERM exits 0. Prints the executable's size and the time to its ready line (docs/deploy.md).
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBinaryBuilt, type Launch, parseJsonOutput, repositoryRoot, runCli } from '../cli/cli-helpers.ts';
import { browserEvent, cleanExit, e2eAdminToken, ingest, shippedServers, utcDate } from '../e2e/_server.ts';

const packageVersion = (JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version: string }).version;
const siteId = 'binary-shop';
const day = utcDate(-1);

let directory: string;
let extracted: string;
let launch: Launch;
let servers: ReturnType<typeof shippedServers>;

// A cold build installs the Node 24 toolchain and compiles better-sqlite3's addon for it (about 30 s on 2 cores);
// nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });

beforeAll(async () => {
  await ensureBinaryBuilt();
  directory = mkdtempSync(join(tmpdir(), 'sightline-binary-'));
  copyFileSync(join(repositoryRoot, 'dist', 'sightline'), join(directory, 'sightline'));
  // Its own TMPDIR: the embedded addon and worker bundles are written there, where the test can see them.
  extracted = mkdtempSync(join(tmpdir(), 'sightline-binary-tmp-'));
  launch = { executable: join(directory, 'sightline'), cwd: directory };
  servers = shippedServers(launch);
}, 900_000);
afterEach(() => servers.disposeAll());
afterAll(() => {
  for (const path of [directory, extracted]) rmSync(path, { recursive: true, force: true });
});

describe('dist/sightline, alone in an empty directory', () => {
  it('prints its version, Node.js 24 and SQLite, with no node_modules anywhere near it', async () => {
    expect(readdirSync(directory)).toEqual(['sightline']);
    const text = await runCli(['--version'], { TMPDIR: extracted }, launch);
    expect(text.code, text.stderr).toBe(0);
    // Nothing on stderr: the embedded code cache was made under the flags the executable runs with (else V8 rejects
    // it with a warning on every start).
    expect(text.stderr).toBe('');
    expect(text.stdout.trim()).toMatch(new RegExp(`^sightline ${packageVersion.replaceAll('.', '\\.')} \\(Node\\.js 24\\.\\d+\\.\\d+, SQLite 3\\.\\d+\\.\\d+\\)$`));
    const json = parseJsonOutput(await runCli(['version', '--json'], { TMPDIR: extracted }, launch));
    expect(json).toEqual({ sightline: packageVersion, node: expect.stringMatching(/^24\./), sqlite: expect.stringMatching(/^3\./) });
    const megabytes = statSync(join(directory, 'sightline')).size / 2 ** 20;
    console.log(`dist/sightline: ${megabytes.toFixed(1)} MiB, ${text.stdout.trim()}`);
  });

  it('creates a site with its own CLI, serves, counts an event in a report and a funnel, and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sightline-binary-data-'));
    try {
      const environment = { DATA_DIR: dataDir, TMPDIR: extracted };
      const workspace = await runCli(['workspace', 'create', '--name', 'Shop', '--slug', 'shop', '--json'], environment, launch);
      expect(workspace.code, workspace.stderr).toBe(0);
      const site = await runCli(['site', 'create', '--workspace', 'shop', '--id', siteId, '--name', 'Shop', '--json'], environment, launch);
      expect(site.code, site.stderr).toBe(0);

      const server = await servers.start({ ...environment, ADMIN_TOKEN: e2eAdminToken });
      console.log(`dist/sightline serve: ready line after ${server.readyAfterMs.toFixed(0)} ms`);
      const [pageview, signup] = await ingest(server, '/v1/events', siteId, [
        browserEvent(siteId, { anon_id: 'alice', ts: `${day}T12:00:00Z`, url: 'https://shop.example/pricing' }),
        browserEvent(siteId, { anon_id: 'alice', ts: `${day}T12:01:00Z`, type: 'signup', url: 'https://shop.example/pricing' }),
      ]);

      // Reports wait for the projector to pass what was acknowledged: the thread ran inside the executable.
      const summary = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}`);
      expect(summary.status, summary.text).toBe(200);
      expect(summary.body.data).toMatchObject({ visitors: 1, visits: 1, pageviews: 1, events: 2 });
      const listed = await server.request('GET', `/v1/sites/${siteId}/events/list-v2?from=${day}&to=${day}`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.events.map((event: { id: string }) => event.id).sort()).toEqual([pageview!.id, signup!.id].sort());

      const funnel = await server.request('POST', '/v1/workspaces/shop/analysis/funnels-v2', {
        body: { site_id: siteId, from: day, to: day, steps: [{ type: 'pageview', path: '/pricing' }, { type: 'signup' }], window: { value: 1, unit: 'hours' } },
      });
      expect(funnel.status, funnel.text).toBe(200);
      expect(funnel.body.data.steps.map((step: { count: number }) => step.count)).toEqual([1, 1]);

      const version = await server.request('GET', '/v1/version');
      expect(version.status, version.text).toBe(200);
      expect(version.body.sightline).toBe(packageVersion);

      // The browser tracker is part of the server bundle: the executable serves it too.
      const tracker = await fetch(`${server.url}/sdk.js`);
      expect(tracker.status).toBe(200);
      expect(tracker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await tracker.text()).toContain('sightline');
      // So is the admin UI.
      const ui = await fetch(`${server.url}/`);
      expect(ui.status).toBe(200);
      expect(ui.headers.get('content-type')).toMatch(/^text\/html/);

      // Both threads were started from the embedded bundles, written to the private TMPDIR (0700, files 0600).
      const written = readdirSync(join(extracted, `sightline-${process.getuid!()}`));
      expect(written.some((name) => name.endsWith('-projector-thread.cjs')), written.join(', ')).toBe(true);
      expect(written.some((name) => name.endsWith('-analysis-thread.cjs')), written.join(', ')).toBe(true);
      expect(written.some((name) => name.endsWith('-better_sqlite3.node')), written.join(', ')).toBe(true);
      expect(statSync(join(extracted, `sightline-${process.getuid!()}`)).mode & 0o777).toBe(0o700);

      expect(await server.stop(), server.output()).toEqual(cleanExit);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
