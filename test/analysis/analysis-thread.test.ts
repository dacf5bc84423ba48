// Analysis computes on its own thread (src/analysis/analysis-runner.ts), over real HTTP. A test gate holds jobs on
// that thread until released, which proves without timing that the HTTP thread acknowledges ingest and answers
// /healthz while a funnel computes; refusals thrown on the thread keep status, code, message and details; the queue
// holds 8 jobs behind the running one and refuses the next with 503 overloaded; a thread that dies fails its job
// (500) and a new one starts; and the app stops while a job runs. Inline (no bundle), every job answers the same.
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findWorkspaceBySlug } from '../../src/tenants/queries/find-workspace.ts';
import { FunnelQueryBody, toFunnelQuery } from '../../src/analysis/funnel-query.ts';
import { createAnalysisGate } from '../../src/analysis/analysis-gate.ts';
import { ApiError } from '../../src/http/errors.ts';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { at, counts, type EventSpec, funnelOk, funnelPath, funnelQuery, postEvents, runFunnel } from './_funnel-helpers.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(analysis: NonNullable<Parameters<typeof startTestServer>[0]>['analysis']): Promise<TestServer> {
  const server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z'), analysis: { mode: 'thread', ...analysis } });
  servers.push(server);
  expect(server.app.analysis.kind).toBe('thread');
  await seedWorkspace(server, 'th', { sites: ['t-site'] });
  await seedWorkspace(server, 'th-other', { sites: ['t-other'] });
  return server;
}

/** Day 1 (2026-03-10): two people view, one signs up (3 events). Day 2: one more view and a signup (2 events). */
const population: EventSpec[] = [
  { site: 't-site', anon: 'a', ts: at(0) },
  { site: 't-site', anon: 'a', ts: at(5), type: 'signup' },
  { site: 't-site', anon: 'b', ts: at(10) },
  { site: 't-site', anon: 'c', ts: at(24 * 60) },
  { site: 't-site', anon: 'c', ts: at(24 * 60 + 5), type: 'signup' },
];
const steps = [{ type: 'pageview' }, { type: 'signup' }];
const dayOne = funnelQuery({ site: 't-site', steps, from: '2026-03-10', to: '2026-03-10', date_mode: 'all_steps' });
const bothDays = funnelQuery({ site: 't-site', steps, from: '2026-03-10', to: '2026-03-11', date_mode: 'all_steps' });

describe('the HTTP thread while a funnel computes', () => {
  it('acknowledges ingest and answers /healthz while the analysis thread holds the funnel, then the funnel answers', async () => {
    const gate = createAnalysisGate();
    const server = await start({ gate });
    await postEvents(server, population);
    let settled = false;
    const funnel = runFunnel(server, 'th', bothDays).finally(() => {
      settled = true;
    });
    // The job is on the analysis thread, blocked at the gate: it cannot answer until released.
    await gate.reached(1);
    // Another workspace's site: whenever the projector counts it, the held funnel's answer is the same.
    const acknowledged = await server.request('POST', '/events', { token: 't-other', body: makeEvent('t-other', { ts: new Date(at(30)).toISOString() }) });
    expect(acknowledged.status, acknowledged.text).toBe(202);
    const health = await server.request('GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    expect(settled).toBe(false);
    gate.release();
    const answer = await funnel;
    expect(answer.status, answer.text).toBe(200);
    expect(counts(answer.body)).toEqual([3, 2]);
    expect(answer.body.data.execution_id).toEqual(expect.any(String));
  });
});

describe('attribution and ROI on the analysis thread', () => {
  it.each([
    ['attribution results', '/workspaces/th/attribution/results?model=linear&from=2026-03-10&to=2026-03-11'],
    ['roi', '/workspaces/th/roi?from=2026-03-10&to=2026-03-11'],
    ['roi compare', '/workspaces/th/roi/compare?from=2026-03-10&to=2026-03-11&compare_from=2026-03-08&compare_to=2026-03-09'],
  ])('%s: held on the thread while ingest is acknowledged, then answered', async (_name, path) => {
    const gate = createAnalysisGate();
    const server = await start({ gate });
    await postEvents(server, [...population, { site: 't-site', anon: 'a', ts: at(6), type: 'purchase' }]);
    let settled = false;
    const answer = server.request('GET', path).finally(() => {
      settled = true;
    });
    await gate.reached(1);
    const acknowledged = await server.request('POST', '/events', { token: 't-other', body: makeEvent('t-other', { ts: new Date(at(30)).toISOString() }) });
    expect(acknowledged.status, acknowledged.text).toBe(202);
    expect(settled).toBe(false);
    gate.release();
    const answered = await answer;
    expect(answered.status, answered.text).toBe(200);
    if (path.includes('attribution')) expect(answered.body.results.map((row: { person: string }) => row.person)).toEqual(['anon:a']);
  });
});

describe('jobs run inline (no bundle, or an in-memory database)', () => {
  it('answers every kind of job on the HTTP thread exactly as the analysis thread does', async () => {
    const answersOf = async (mode: 'thread' | 'inline') => {
      const server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z'), analysis: { mode } });
      servers.push(server);
      expect(server.app.analysis.kind).toBe(mode);
      await seedWorkspace(server, 'th', { sites: ['t-site'] });
      await postEvents(server, [...population, { site: 't-site', anon: 'a', ts: at(6), type: 'purchase' }]);
      const run = await funnelOk(server, 'th', bothDays);
      const panel = { query: bothDays, transition: { from_step: 1, to_step: 2 }, execution_id: run.data.execution_id };
      const answers: unknown[] = [{ ...run, data: { ...run.data, execution_id: 'signed with each database\'s own secret' } }];
      for (const request of [
        server.request('POST', funnelPath('th', 'correlation'), { body: panel }),
        server.request('POST', funnelPath('th', 'explanation'), { body: panel }),
        server.request('GET', '/workspaces/th/attribution/results?model=linear&from=2026-03-10&to=2026-03-11'),
        server.request('GET', '/workspaces/th/roi?from=2026-03-10&to=2026-03-11'),
        server.request('GET', '/workspaces/th/roi/compare?from=2026-03-10&to=2026-03-11&compare_from=2026-03-08&compare_to=2026-03-09'),
      ]) {
        const answered = await request;
        expect(answered.status, answered.text).toBe(200);
        // Event ids are random: the purchase's differs between the two servers.
        answers.push(JSON.parse(answered.text.replace(/"conversion_id":"[^"]+"/g, '"conversion_id":"the purchase"')));
      }
      return answers;
    };
    const inline = await answersOf('inline');
    expect(counts(inline[0])).toEqual([3, 2]);
    expect(inline).toEqual(await answersOf('thread'));
  });
});

describe('refusals from the analysis thread', () => {
  it('range_too_large at the cap of events read: the cap passes, one event more is refused with the same body as before', async () => {
    const server = await start({ limits: { maxFunnelEvents: 3 } });
    await postEvents(server, population);
    // Day 1 holds 3 events of the steps' types: exactly the cap.
    expect(counts(await funnelOk(server, 'th', dayOne))).toEqual([2, 1]);
    const refused = await runFunnel(server, 'th', bothDays);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toEqual({
      error: {
        code: 'range_too_large',
        message: 'The analysis would read more than 3 events: narrow the range or the scope',
        details: [{ path: '/to', message: 'the range and scope hold more than 3 events to read' }],
      },
    });
    // The panels read the funnel's own events (the other events of the people at the transition are read person by
    // person): an execution under the cap has panels under it too.
    const run = await funnelOk(server, 'th', dayOne);
    for (const panel of ['explanation', 'correlation'] as const) {
      const answered = await server.request('POST', funnelPath('th', panel), { body: { query: dayOne, transition: { from_step: 1, to_step: 2 }, execution_id: run.data.execution_id } });
      expect(answered.status, answered.text).toBe(200);
    }
  });

  it('counts towards the cap only the events that match a step: type and path are tested in SQL, not after reading', async () => {
    const server = await start({ limits: { maxFunnelEvents: 3 } });
    const pageSteps = [{ type: 'pageview', path: '/pricing' }, { type: 'signup' }];
    await postEvents(server, [
      { site: 't-site', anon: 'a', ts: at(0), path: '/pricing' },
      { site: 't-site', anon: 'a', ts: at(5), type: 'signup' },
      { site: 't-site', anon: 'b', ts: at(10), path: '/pricing' },
      // Five pageviews of other pages, and one of a path that only starts like the step's: none is read.
      ...[1, 2, 3, 4].map((minute) => ({ site: 't-site', anon: 'd', ts: at(20 + minute), path: `/other/${minute}` })),
      { site: 't-site', anon: 'd', ts: at(30), path: '/pricing/faq' },
    ]);
    const exact = funnelQuery({ site: 't-site', steps: pageSteps, from: '2026-03-10', to: '2026-03-10', date_mode: 'all_steps' });
    expect(counts(await funnelOk(server, 'th', exact))).toEqual([2, 1]);
    // A prefix step reads /pricing/faq too: 4 events, one past the cap.
    const prefix = funnelQuery({ site: 't-site', steps: [{ type: 'pageview', path: '/pricing*' }, { type: 'signup' }], from: '2026-03-10', to: '2026-03-10', date_mode: 'all_steps' });
    const refused = await runFunnel(server, 'th', prefix);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.code).toBe('range_too_large');
  });

  it('keeps 409 execution_mismatch and the 404 of a foreign site', async () => {
    const server = await start({});
    await postEvents(server, population);
    const run = await funnelOk(server, 'th', dayOne);
    const mismatch = await server.request('POST', funnelPath('th', 'correlation'), {
      body: { query: { ...dayOne, window: { value: 2, unit: 'days' } }, transition: { from_step: 1, to_step: 2 }, execution_id: run.data.execution_id },
    });
    expect(mismatch.status, mismatch.text).toBe(409);
    expect(mismatch.body).toEqual({
      error: {
        code: 'execution_mismatch',
        message: 'The query differs from the one the execution_id was issued for: run the funnel again',
        details: [{ path: '/query', message: 'differs from the query of execution_id' }],
      },
    });
    // The site is resolved on the analysis thread.
    const foreign = await runFunnel(server, 'th', { ...dayOne, site_id: 't-other' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: 'not_found', message: 'Not found' } });
  });

  it('turns any other failure on the thread into an Error (rendered 500 internal_error), and the thread goes on', async () => {
    const server = await start({});
    await postEvents(server, population);
    const workspace = { id: 'none', slug: 'none', name: 'none', created_at: '', updated_at: '' };
    const failure = await server.app.analysis.run({ kind: 'funnel', now: 0, workspace, query: null as never, caughtUp: true }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ApiError);
    expect(counts(await funnelOk(server, 'th', dayOne))).toEqual([2, 1]);
  });
});

describe('a thread that dies', () => {
  it('fails the job it held with 500 internal_error and starts a new thread for the next one', async () => {
    const gate = createAnalysisGate();
    const server = await start({ gate });
    await postEvents(server, population);
    const lost = runFunnel(server, 'th', dayOne);
    await gate.reached(1);
    gate.exitHeld();
    const failed = await lost;
    expect(failed.status, failed.text).toBe(500);
    expect(failed.body).toEqual({ error: { code: 'internal_error', message: 'Internal server error' } });
    // The gate closed again: the new thread holds the next job until released.
    const next = runFunnel(server, 'th', dayOne);
    await gate.reached(2);
    gate.release();
    const answer = await next;
    expect(answer.status, answer.text).toBe(200);
    expect(counts(answer.body)).toEqual([2, 1]);
  });
});

describe('the queue', () => {
  it('holds 8 jobs behind the running one and refuses the next with 503 overloaded and Retry-After', async () => {
    const gate = createAnalysisGate();
    const server = await start({ gate });
    await postEvents(server, population);
    const running = runFunnel(server, 'th', dayOne);
    await gate.reached(1);
    const queued = Array.from({ length: 8 }, () => runFunnel(server, 'th', dayOne));
    await vi.waitFor(() => expect(server.app.analysis.waiting()).toBe(8), { timeout: 10_000 });
    expect((await server.request('GET', '/metrics')).text).toMatch(/^sightline_analysis_queue_depth 8$/m);
    const refused = await runFunnel(server, 'th', dayOne);
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ error: { code: 'overloaded', message: 'Too many analysis requests are waiting; retry shortly' } });
    gate.release();
    for (const answer of await Promise.all([running, ...queued])) {
      expect(answer.status, answer.text).toBe(200);
      expect(counts(answer.body)).toEqual([2, 1]);
    }
    expect(server.app.analysis.waiting()).toBe(0);
    expect(counts(await funnelOk(server, 'th', dayOne))).toEqual([2, 1]);
    const metrics = (await server.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^sightline_analysis_jobs_total\{outcome="answered"\} 10$/m);
    expect(metrics).toMatch(/^sightline_analysis_jobs_total\{outcome="overloaded"\} 1$/m);
  });
});

describe('stopping', () => {
  it('stops while a job runs on the thread and another waits: the waiting one is refused, close() finishes', async () => {
    const gate = createAnalysisGate();
    const server = await start({ gate });
    await postEvents(server, population);
    const job = { kind: 'funnel' as const, now: 0, workspace: findWorkspaceBySlug(server.db, 'th')!, query: toFunnelQuery(v.parse(FunnelQueryBody, dayOne), ''), caughtUp: true };
    const outcomes = [server.app.analysis.run(job).catch((error: unknown) => error)];
    await gate.reached(1);
    outcomes.push(server.app.analysis.run(job).catch((error: unknown) => error));
    expect(server.app.analysis.waiting()).toBe(1);
    servers.splice(servers.indexOf(server), 1);
    // The gate is never released: close() must stop the held job itself.
    await server.close();
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toMatchObject({ status: 503, code: 'overloaded', message: 'The server is shutting down' });
  });
});
