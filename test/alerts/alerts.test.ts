// Traffic alerts (CONTRACT 13, docs/email.md "Alerts"): the rules' edges and refusals, a scripted spike and a scripted
// drop each firing once (not again within the hour, across a restart too), delivered by mail through a real SMTP
// server and to a webhook endpoint through the signed delivery runtime; the mail's one-click unsubscribe takes the
// recipient off the rule. Real app, real SQLite files, a manual clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { maxAlertsPerSite, maxSpikeThreshold } from '../../src/alerts/alert-rules.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { send, wireEvent } from '../events/_helpers.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../integrations/_receiver.ts';
import { headerOf, type SmtpReceiver, startSmtpReceiver } from '../mail/_smtp.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser, type SignedIn } from '../users/_users.ts';

const minute = 60_000;
const hour = 60 * minute;
const week = 7 * 24 * hour;
const alertsPath = '/v1/sites/watch-site/alerts';
// Real timers that never fire within a test (a day; under setTimeout's 2^31 ms bound): the test runs each check itself.
const quiet = { pollMs: 24 * hour, reportSchedule: { intervalMs: 24 * hour, firstAfterMs: 24 * hour }, alerts: { intervalMs: 24 * hour } };

describe('traffic alerts', () => {
  let smtp: SmtpReceiver;
  let hooks: Receiver;
  let server: TestServer;
  let clock: ManualClock;
  let context: AppContext;
  let dataDir: string;
  let memberId: string;
  let analyst: SignedIn;
  let endpoint: { id: string; secret: string };

  const start = async (env: Record<string, string> = { SMTP_URL: smtp.url, SMTP_FROM: 'alerts@example.com', PUBLIC_URL: 'https://stats.example.com' }) => {
    server = await startTestServer({ clock, dataDir, env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', ...env }, mail: quiet, extend: (_app, appContext) => (context = appContext) });
  };

  beforeEach(async () => {
    smtp = await startSmtpReceiver();
    hooks = await startReceiver({ status: 204 });
    clock = manualClock('2026-03-10T12:00:00.000Z');
    dataDir = makeTempDir();
    await start();
    await seedWorkspace(server, 'watch', { sites: ['watch-site'] });
    await seedWorkspace(server, 'other', { sites: ['other-site'] });
    memberId = await makeUser(context, 'member@example.com', { memberships: [['watch', 'analyst']] });
    await makeUser(context, 'outsider@example.com', { memberships: [['other', 'owner']] });
    analyst = await login(server, { email: 'member@example.com', password: goodPassword });
    endpoint = (await server.request('POST', '/v1/workspaces/watch/integrations/endpoints', { body: { url: hooks.url, event_types: ['bridge.action_recorded'] } })).body;
  });
  afterEach(async () => {
    await server.close();
    await smtp.close();
    await hooks.close();
  });

  /** `count` distinct visitors on the site at `msAgo` before the clock's now. */
  const visitors = (count: number, msAgo: number, prefix: string) =>
    send(server, 'watch-site', Array.from({ length: count }, (_, index) => wireEvent('watch-site', { anon_id: `${prefix}-${index}`, ts: new Date(clock.now() - msAgo).toISOString() })));
  const create = async (body: Record<string, unknown>) => {
    const response = await server.request('POST', alertsPath, { body });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: string };
  };

  it('takes thresholds at their edges and refuses what is not a rule (scenarios)', async () => {
    const outsider = (await server.request('GET', '/v1/workspaces/other/members')).body.members[0].user_id as string;
    const scenarios: { name: string; body: Record<string, unknown>; status: number; detail?: string }[] = [
      { name: 'a spike of 1 visitor (the least)', body: { kind: 'traffic_spike', threshold: 1, recipients: [memberId] }, status: 201 },
      { name: `a spike of ${maxSpikeThreshold} (the most)`, body: { kind: 'traffic_spike', threshold: maxSpikeThreshold, endpoint_id: endpoint.id }, status: 201 },
      { name: 'a spike of 0', body: { kind: 'traffic_spike', threshold: 0, recipients: [memberId] }, status: 400, detail: '/threshold' },
      { name: 'a spike past the most', body: { kind: 'traffic_spike', threshold: maxSpikeThreshold + 1, recipients: [memberId] }, status: 400, detail: '/threshold' },
      { name: 'a drop of 100%', body: { kind: 'traffic_drop', threshold: 100, recipients: [memberId] }, status: 201 },
      { name: 'a drop of 1%', body: { kind: 'traffic_drop', threshold: 1, recipients: [memberId] }, status: 201 },
      { name: 'a drop of 101%', body: { kind: 'traffic_drop', threshold: 101, recipients: [memberId] }, status: 400, detail: '/threshold' },
      { name: 'a fractional threshold', body: { kind: 'traffic_drop', threshold: 2.5, recipients: [memberId] }, status: 400, detail: '/threshold' },
      { name: 'a recipient of another workspace', body: { kind: 'traffic_spike', threshold: 5, recipients: [memberId, outsider] }, status: 400, detail: '/recipients/1' },
      { name: 'a repeated recipient', body: { kind: 'traffic_spike', threshold: 5, recipients: [memberId, memberId] }, status: 400, detail: '/recipients' },
      { name: 'an unknown endpoint', body: { kind: 'traffic_spike', threshold: 5, endpoint_id: 'nope' }, status: 400, detail: '/endpoint_id' },
      { name: 'nowhere to deliver', body: { kind: 'traffic_spike', threshold: 5 }, status: 400, detail: '/recipients' },
      { name: 'an unknown kind', body: { kind: 'traffic_flood', threshold: 5, recipients: [memberId] }, status: 400, detail: '/kind' },
      { name: 'an unknown field', body: { kind: 'traffic_spike', threshold: 5, recipients: [memberId], every: 'hour' }, status: 400 },
    ];
    for (const scenario of scenarios) {
      const response = await server.request('POST', alertsPath, { body: scenario.body });
      expect(response.status, `${scenario.name}: ${response.text}`).toBe(scenario.status);
      if (scenario.status === 400) expect(response.body.error.code, scenario.name).toBe('invalid_payload');
      if (scenario.detail) expect(response.body.error.details.map((detail: { path: string }) => detail.path), scenario.name).toContain(scenario.detail);
    }
    const named = await server.request('POST', alertsPath, { body: { kind: 'traffic_spike', threshold: 5, recipients: [outsider] } });
    expect(named.body.error.details[0].message).toContain(outsider);
    const listed = (await server.request('GET', alertsPath)).body.alerts;
    expect(listed).toHaveLength(4);
    expect(listed[0]).toEqual({ id: expect.any(String), site_id: 'watch-site', kind: 'traffic_spike', threshold: 1, recipients: [memberId], endpoint_id: null, created_at: clock.iso(), last_fired_at: null });

    // Changes: the kind stays; a drop's threshold keeps its 100 bound; another site's rule is 404.
    const drop = listed[2];
    const patched = await server.request('PATCH', `${alertsPath}/${drop.id}`, { body: { threshold: 40, endpoint_id: endpoint.id } });
    expect(patched.body).toEqual({ ...drop, threshold: 40, endpoint_id: endpoint.id });
    expect((await server.request('PATCH', `${alertsPath}/${drop.id}`, { body: { threshold: 101 } })).status).toBe(400);
    expect((await server.request('PATCH', `${alertsPath}/${drop.id}`, { body: { kind: 'traffic_spike' } })).status).toBe(400);
    expect((await server.request('PATCH', `/v1/sites/other-site/alerts/${drop.id}`, { body: { threshold: 3 } })).status).toBe(404);
    // Owners and admins only: an analyst sees the site but not its alerts; a site of another workspace is 404.
    expect((await server.request('GET', alertsPath, analyst.as())).body.error.code).toBe('forbidden_scope');
    expect((await server.request('GET', '/v1/sites/other-site/alerts', analyst.as())).status).toBe(404);
    expect((await server.request('DELETE', `${alertsPath}/${drop.id}`)).status).toBe(204);
    expect((await server.request('DELETE', `${alertsPath}/${drop.id}`)).status).toBe(404);
  });

  it(`keeps at most ${maxAlertsPerSite} rules per site, and mails only with SMTP`, async () => {
    for (let index = 0; index < maxAlertsPerSite; index++) await create({ kind: 'traffic_spike', threshold: index + 1, endpoint_id: endpoint.id });
    const refused = await server.request('POST', alertsPath, { body: { kind: 'traffic_spike', threshold: 99, endpoint_id: endpoint.id } });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'too_many_alerts']);
    await server.close();
    await start({});
    const noSmtp = await server.request('POST', '/v1/sites/other-site/alerts', { body: { kind: 'traffic_spike', threshold: 1, recipients: [(await server.request('GET', '/v1/workspaces/other/members')).body.members[0].user_id] } });
    expect([noSmtp.status, noSmtp.body.error.code]).toEqual([409, 'smtp_not_configured']);
    // A webhook-only rule needs no mail.
    expect((await server.request('POST', '/v1/sites/other-site/alerts', { body: { kind: 'traffic_spike', threshold: 1, endpoint_id: null, recipients: [] } })).status).toBe(400);
  });

  it('fires once for a scripted spike, by mail and signed webhook, not again within the hour (a restart included)', async () => {
    const spike = await create({ kind: 'traffic_spike', threshold: 3, recipients: [memberId], endpoint_id: endpoint.id });
    // Two visitors in the last hour, one just outside it: under the threshold.
    await visitors(2, 10 * minute, 'early');
    await visitors(1, hour + minute, 'old');
    expect(await server.app.alerts.checkNow()).toEqual([]);
    // The third visitor of the hour: at the threshold, it fires.
    await visitors(1, 5 * minute, 'third');
    expect(await server.app.alerts.checkNow()).toEqual([spike.id]);
    expect(await server.app.alerts.checkNow()).toEqual([]);
    await server.app.mailer.outbox.sendDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelopeTo).toEqual(['member@example.com']);
    expect(mail!.parsed.subject).toBe('Traffic spike on Site watch-site: 3 visitors in the last hour (threshold 3)');
    expect(mail!.parsed.text).toContain('Hour: 2026-03-10T11:00:00.000Z to 2026-03-10T12:00:00.000Z (UTC)');
    expect(mail!.parsed.html).not.toMatch(/<img|<script/i);
    expect(headerOf(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    await server.app.deliveries.deliverDue();
    expect(hooks.received).toHaveLength(1);
    const payload = verifyDelivery(endpoint.secret, hooks.received[0]!, Math.floor(clock.now() / 1000));
    expect(payload).toMatchObject({
      type: 'alert.triggered',
      workspace: { slug: 'watch' },
      data: { alert_id: spike.id, site_id: 'watch-site', kind: 'traffic_spike', threshold: 3, visitors: 3, baseline: null, window: { from: '2026-03-10T11:00:00.000Z', to: '2026-03-10T12:00:00.000Z' } },
    });
    expect((await server.request('GET', alertsPath)).body.alerts[0].last_fired_at).toBe('2026-03-10T12:00:00.000Z');

    // Still spiking 59 minutes later, across a restart: quiet.
    clock.advance(59 * minute);
    await visitors(5, minute, 'later');
    await server.close();
    await start();
    expect(await server.app.alerts.checkNow()).toEqual([]);
    // An hour after the firing: it may fire again.
    clock.advance(minute);
    expect(await server.app.alerts.checkNow()).toEqual([spike.id]);
    await server.app.mailer.outbox.sendDue();
    await smtp.waitFor(2);
    expect(smtp.received).toHaveLength(2);
  });

  it('fires once for a scripted drop against the same hour last week; the unsubscribe link takes the recipient off', async () => {
    // Last week's hour: four visitors; this hour: two, 50% below.
    await visitors(4, week + 30 * minute, 'last-week');
    await visitors(2, 30 * minute, 'now');
    const atHalf = await create({ kind: 'traffic_drop', threshold: 50, recipients: [memberId] });
    const pastHalf = await create({ kind: 'traffic_drop', threshold: 51, recipients: [memberId] });
    expect(await server.app.alerts.checkNow()).toEqual([atHalf.id]);
    expect(await server.app.alerts.checkNow()).toEqual([]);
    expect((await server.request('GET', alertsPath)).body.alerts.find((alert: { id: string }) => alert.id === pastHalf.id).last_fired_at).toBeNull();
    await server.app.mailer.outbox.sendDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail!.parsed.subject).toBe('Traffic drop on Site watch-site: 2 visitors in the last hour, against 4 in the same hour last week (alert at 50% below)');
    expect(mail!.parsed.text).toBeTruthy();

    const link = new URL(headerOf(mail!, 'list-unsubscribe').slice(1, -1));
    expect(link.origin).toBe('https://stats.example.com');
    const local = `${link.pathname}${link.search}`;
    expect((await server.request('GET', local, { token: null })).text).toContain('this traffic drop alert');
    expect((await server.request('POST', `${local}x`, { token: null })).status).toBe(404);
    expect((await server.request('POST', local, { token: null, rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
    expect((await server.request('GET', alertsPath)).body.alerts.find((alert: { id: string }) => alert.id === atHalf.id).recipients).toEqual([]);
    // Off the rule: the next firing mails no one.
    clock.advance(hour);
    await visitors(4, week + 30 * minute, 'last-week-2');
    expect(await server.app.alerts.checkNow()).toContain(atHalf.id);
    await server.app.mailer.outbox.sendDue();
    expect(smtp.received.filter((received) => received.parsed.subject?.includes('(alert at 50% below)'))).toHaveLength(1);
  });
});
