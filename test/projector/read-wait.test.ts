// READ_WAIT_MS: how long a read of derived data waits for the projector, 0 to 60000 ms (2000 by default). Its edges
// are checked on the configuration; on a server with a manual projector, a report given 60 s still waits when the
// projector passes its event after the default 2 s would have run out, and answers it complete. No timing decides:
// with the setting ignored the report would answer projection_lag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { at, postEvents } from '../analysis/_funnel-helpers.ts';

describe('READ_WAIT_MS', () => {
  it.each([
    ['unset: 2 s', {}, 2000],
    ['0, the least: reads answer at once with what is projected', { READ_WAIT_MS: '0' }, 0],
    ['60000, the most', { READ_WAIT_MS: '60000' }, 60_000],
  ])('takes %s', (_name, env, expected) => {
    expect(loadConfig(env).readWaitMs).toBe(expected);
  });

  it.each([
    ['-1', 'READ_WAIT_MS'],
    ['60001', 'READ_WAIT_MS'],
    ['2s', 'READ_WAIT_MS: must be a whole number'],
  ])('refuses %s, naming the variable', (value, message) => {
    expect(() => loadConfig({ READ_WAIT_MS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ READ_WAIT_MS: value })).toThrow(message);
  });

  it('a flag wins over the variable', () => {
    expect(loadConfig({ READ_WAIT_MS: '10' }, { 'read-wait-ms': '20' }).readWaitMs).toBe(20);
  });
});

describe('a report on a server with READ_WAIT_MS=60000', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z'), projector: 'manual', env: { READ_WAIT_MS: '60000' } });
    await seedWorkspace(server, 'wait', { sites: ['wait-site'] });
  });
  afterAll(() => server.close());

  it('waits past the default 2 s for the projector and counts the event', async () => {
    await postEvents(server, [{ site: 'wait-site', anon: 'ann', ts: at(0) }]);
    const read = server.request('GET', '/v1/sites/wait-site/reports/summary-v2?from=2026-03-10&to=2026-03-10');
    // The projector passes the event only after the default wait would have run out.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    server.app.projection.projectNow();
    const answer = await read;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({ visitors: 1, events: 1 });
    expect(answer.body.meta.completeness).toEqual({ complete: true });
  });
});
