// Funnels and the projector: a run counts what the projector has passed (its position is the execution's
// watermark); when the bounded wait runs out it says so in meta (projection_lag) and pins that position, so its
// panels keep counting the same people after the projector catches up, while a new run counts everything. The
// projector is manual here: nothing is projected until the test says so, so no timing decides the outcome.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { at, funnelOk, funnelPath, funnelQuery, postEvents } from './_funnel-helpers.ts';

let server: TestServer;
const query = funnelQuery({ site: 'fr-site', steps: [{ type: 'pageview' }, { type: 'signup' }] });

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z'), projector: 'manual', projectionWaitMs: 50 });
  await seedWorkspace(server, 'fresh', { sites: ['fr-site'] });
});
afterAll(() => server.close());

it('pins the projected watermark: projection_lag when the wait runs out, the same population in the panels afterwards', async () => {
  await postEvents(server, [
    { site: 'fr-site', anon: 'first', ts: at(0) },
    { site: 'fr-site', anon: 'first', ts: at(1), type: 'signup' },
  ]);
  server.app.projection.projectNow();
  // Stored, but not projected: past the watermark of the next run.
  await postEvents(server, [
    { site: 'fr-site', anon: 'second', ts: at(0) },
    { site: 'fr-site', anon: 'first-phone', ts: at(0) },
  ]);
  const lagging = await funnelOk(server, 'fresh', query);
  expect(lagging.data.steps.map((step: any) => step.count)).toEqual([1, 1]);
  expect(lagging.meta.completeness).toEqual({ complete: false, reason: 'projection_lag' });
  expect(lagging.meta.warnings.some((warning: string) => warning.includes('projected_through'))).toBe(true);
  expect(Date.parse(lagging.meta.freshness.watermark)).toBeGreaterThanOrEqual(Date.parse(lagging.meta.freshness.projected_through));

  server.app.projection.projectNow();
  const explanation = await server.request('POST', funnelPath('fresh', 'explanation'), {
    body: { query, transition: { from_step: 1, to_step: 2 }, execution_id: lagging.data.execution_id },
  });
  expect(explanation.status, explanation.text).toBe(200);
  expect(explanation.body.data).toMatchObject({ converted: 1, dropped: 0 });
  // The panel shows the execution's freshness and completeness, not today's.
  expect(explanation.body.meta.freshness).toEqual(lagging.meta.freshness);
  expect(explanation.body.meta.completeness).toEqual({ complete: false, reason: 'projection_lag' });

  const caughtUp = await funnelOk(server, 'fresh', query);
  expect(caughtUp.data.steps.map((step: any) => step.count)).toEqual([3, 1]);
  expect(caughtUp.meta.completeness).toEqual({ complete: true });
});

it('is incomplete while the events it reads reach today: the range, plus the window in first_step mode', async () => {
  // The clock says 2026-03-20 12:00.
  const ending = (to: string, window: { value: number; unit: string }, date_mode = 'first_step') =>
    funnelOk(server, 'fresh', { ...query, from: '2026-03-01', to, window, date_mode });
  expect((await ending('2026-03-18', { value: 1, unit: 'days' })).meta.completeness).toEqual({ complete: true });
  const reaching = await ending('2026-03-18', { value: 2, unit: 'days' });
  expect(reaching.meta.completeness.complete).toBe(false);
  expect(reaching.meta.warnings).toHaveLength(1);
  expect((await ending('2026-03-18', { value: 2, unit: 'days' }, 'all_steps')).meta.completeness).toEqual({ complete: true });
  expect((await ending('2026-03-20', { value: 1, unit: 'minutes' }, 'all_steps')).meta.completeness.complete).toBe(false);
});
