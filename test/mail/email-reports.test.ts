// E-mail reports (CONTRACT 13, docs/email.md) through a real SMTP server: a member's own subscriptions and their
// refusals, the test send's parsed message (both parts, the RFC 8058 headers, no remote images, the API's figures),
// the unsubscribe link working without a session, retries, and the durable schedule: one mail per due period,
// across restarts. Real app, real SQLite files, a manual clock; the SMTP receiver is smtp-server + mailparser.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { duePeriodOf } from '../../src/email-reports/report-periods.ts';
import { toDateText } from '../../src/vocabulary/periods.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { send, wireEvent } from '../events/_helpers.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser, type SignedIn } from '../users/_users.ts';
import { headerOf, type SmtpReceiver, startSmtpReceiver } from './_smtp.ts';

const publicUrl = 'https://analytics.example.com';
const hour = 3_600_000;
const day = 24 * hour;
// Timers that never fire within a test: the test runs each pass itself.
const quietMail = { pollMs: 10 * day, reportSchedule: { intervalMs: 10 * day, firstAfterMs: 10 * day } };

function mailEnv(smtp: SmtpReceiver): Record<string, string> {
  return { SMTP_URL: smtp.url, SMTP_FROM: 'Sightline <reports@example.com>', PUBLIC_URL: publicUrl };
}

/** Visitors' pageviews on the site at `iso` (one per path). */
function visit(anon: string, iso: string, paths: string[], referrer?: string): Record<string, unknown>[] {
  return paths.map((path, index) =>
    wireEvent('mail-site', { anon_id: anon, ts: new Date(Date.parse(iso) + index * 60_000).toISOString(), url: `https://shop.example${path}`, ...(referrer ? { referrer } : {}) }),
  );
}

describe('report periods (UTC)', () => {
  it.each([
    ['weekly on a Wednesday', 'weekly', '2026-03-04T10:00:00Z', '2026-03-02', '2026-02-23', '2026-03-01', '2026-02-16', '2026-02-22'],
    ['weekly at Monday 00:00 exactly', 'weekly', '2026-03-09T00:00:00Z', '2026-03-09', '2026-03-02', '2026-03-08', '2026-02-23', '2026-03-01'],
    ['weekly a millisecond before Monday', 'weekly', '2026-03-08T23:59:59.999Z', '2026-03-02', '2026-02-23', '2026-03-01', '2026-02-16', '2026-02-22'],
    ['monthly on the 1st', 'monthly', '2026-03-01T00:00:00Z', '2026-03-01', '2026-02-01', '2026-02-28', '2026-01-01', '2026-01-31'],
    ['monthly in January', 'monthly', '2026-01-15T12:00:00Z', '2026-01-01', '2025-12-01', '2025-12-31', '2025-11-01', '2025-11-30'],
  ] as const)('%s', (_name, frequency, now, due, from, to, previousFrom, previousTo) => {
    const period = duePeriodOf(frequency, Date.parse(now));
    expect([period.dueDay, period.range.fromDay, period.range.toDay, period.previous.fromDay, period.previous.toDay].map(toDateText)).toEqual([due, from, to, previousFrom, previousTo]);
  });
});

describe('e-mail reports', () => {
  let smtp: SmtpReceiver;
  let server: TestServer;
  let clock: ManualClock;
  let context: AppContext;
  let member: SignedIn;
  let other: SignedIn;

  async function start(options: { dataDir?: string; env?: Record<string, string>; firstPassAtStart?: boolean } = {}): Promise<void> {
    server = await startTestServer({
      clock,
      dataDir: options.dataDir,
      env: options.env ?? mailEnv(smtp),
      extend: (_app, appContext) => (context = appContext),
      mail: options.firstPassAtStart ? { ...quietMail, reportSchedule: { intervalMs: 10 * day, firstAfterMs: 0 } } : quietMail,
    });
  }

  beforeEach(async () => {
    smtp = await startSmtpReceiver();
    // A Wednesday.
    clock = manualClock('2026-03-04T10:00:00.000Z');
    await start();
    await seedWorkspace(server, 'mail', { sites: ['mail-site'] });
    await seedWorkspace(server, 'elsewhere', { sites: ['elsewhere-site'] });
    await makeUser(context, 'member@example.com', { memberships: [['mail', 'viewer']] });
    await makeUser(context, 'other@example.com', { memberships: [['mail', 'owner']] });
    member = await login(server, { email: 'member@example.com', password: goodPassword });
    other = await login(server, { email: 'other@example.com', password: goodPassword });
  });
  afterEach(async () => {
    await server.close();
    await smtp.close();
  });

  const subscribe = (who: SignedIn, frequency = 'weekly') => server.request('POST', '/v1/sites/mail-site/email-reports', { ...who.as(), body: { frequency } });

  it('sends a test now: both parts, one-click unsubscribe headers, no remote images, the figures of the API', async () => {
    // The week before (2026-02-23..03-01): three visitors; the week before that: two.
    await send(server, 'mail-site', [
      ...visit('a', '2026-02-24T09:00:00Z', ['/', '/pricing'], 'https://www.google.com/'),
      ...visit('b', '2026-02-25T09:00:00Z', ['/']),
      ...visit('c', '2026-02-28T09:00:00Z', ['/pricing', '/signup', '/pricing'], 'https://news.ycombinator.com/item'),
      ...visit('d', '2026-02-17T09:00:00Z', ['/']),
      ...visit('e', '2026-02-18T09:00:00Z', ['/']),
    ]);
    await server.projected();
    const created = await subscribe(member);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), user_id: member.userId, frequency: 'weekly', created_at: '2026-03-04T10:00:00.000Z' });

    const test = await server.request('POST', `/v1/sites/mail-site/email-reports/${created.body.id}/test`, member.as());
    expect(test.status, test.text).toBe(200);
    expect(test.body).toEqual({ id: expect.stringMatching(/^test:/), to: 'member@example.com', status: 'sent' });
    const [mail] = await smtp.waitFor(1);
    const { parsed } = mail!;
    expect(mail!.envelopeTo).toEqual(['member@example.com']);
    expect(parsed.from?.text).toBe('"Sightline" <reports@example.com>');
    expect(parsed.subject).toBe('[Test] Weekly report for Site mail-site: 2026-02-23 to 2026-03-01');
    expect(parsed.text).toBeTruthy();
    expect(parsed.html).toBeTruthy();
    expect(headerOf(mail!, 'list-unsubscribe')).toMatch(new RegExp(`^<${publicUrl}/v1/email-reports/unsubscribe\\?token=[^>]+>$`));
    expect(headerOf(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // No remote images, scripts or style sheets: everything inline.
    const html = parsed.html as string;
    expect(html).not.toMatch(/<img|<script|<link|url\(|<style/i);
    expect(html).toContain('style="');

    const summary = (await server.request('GET', '/v1/sites/mail-site/reports/summary-v2?from=2026-02-23&to=2026-03-01')).body.data;
    const before = (await server.request('GET', '/v1/sites/mail-site/reports/summary-v2?from=2026-02-16&to=2026-02-22')).body.data;
    const pages = (await server.request('GET', '/v1/sites/mail-site/reports/pages-v2?from=2026-02-23&to=2026-03-01&limit=5')).body.data.rows;
    const sources = (await server.request('GET', '/v1/sites/mail-site/reports/sources-v2?from=2026-02-23&to=2026-03-01&limit=5')).body.data.rows;
    expect([summary.visitors, before.visitors, summary.pageviews]).toEqual([3, 2, 6]);
    const text = parsed.text!;
    expect(text).toContain(`Visitors: ${summary.visitors} (+50%; before: ${before.visitors})`);
    expect(text).toContain(`Pageviews: ${summary.pageviews} (+200%; before: ${before.pageviews})`);
    expect(text).toContain(`Bounce rate: ${Math.round(summary.bounce_rate * 1000) / 10}%`);
    for (const row of pages) expect(text).toContain(`  ${row.path}: ${row.visitors}, ${row.pageviews}`);
    for (const row of sources) expect(text).toContain(`  ${row.source}: ${row.visitors}, ${row.visits}`);
    expect(pages.length).toBeGreaterThan(1);
    expect(html).toContain('/pricing');
  });

  it('unsubscribes through the link without a session: GET shows a page, POST (one-click) removes it, a forged token is 404', async () => {
    const created = await subscribe(member);
    await server.request('POST', `/v1/sites/mail-site/email-reports/${created.body.id}/test`, member.as());
    const [mail] = await smtp.waitFor(1);
    const link = new URL(headerOf(mail!, 'list-unsubscribe').slice(1, -1));
    expect(mail!.parsed.text).toContain(link.href);
    const local = `${link.pathname}${link.search}`;

    const page = await server.request('GET', local, { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('<form method="post"');
    expect(page.text).toContain('the weekly report of Site mail-site');
    // Looking is not unsubscribing (a link scanner follows GETs).
    expect((await server.request('GET', '/v1/sites/mail-site/email-reports', member.as())).body.email_reports).toHaveLength(1);

    const forged = [`${local.slice(0, -2)}AA`, '/v1/email-reports/unsubscribe?token=nope', '/v1/email-reports/unsubscribe', `/v1/email-reports/unsubscribe?token=${created.body.id}.`];
    for (const path of forged) {
      const refused = await server.request('POST', path, { token: null, rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(refused.status, path).toBe(404);
      expect(refused.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
    expect((await server.request('GET', '/v1/sites/mail-site/email-reports', member.as())).body.email_reports).toHaveLength(1);

    const oneClick = await server.request('POST', local, { token: null, rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(oneClick.status).toBe(200);
    expect(oneClick.text).toContain('You are unsubscribed');
    expect((await server.request('GET', '/v1/sites/mail-site/email-reports', member.as())).body.email_reports).toEqual([]);
    // Twice: the same answer.
    expect((await server.request('POST', local, { token: null })).status).toBe(200);
    expect((await server.request('GET', local, { token: null })).text).toContain('You are unsubscribed');
  });

  it('keeps subscriptions to their member and refuses bad input (scenarios)', async () => {
    const mine = (await subscribe(member)).body;
    const scenarios: { name: string; method: string; path: string; who: 'member' | 'other' | 'admin'; body?: unknown; status: number; code?: string }[] = [
      { name: 'an unknown frequency', method: 'POST', path: '/v1/sites/mail-site/email-reports', who: 'member', body: { frequency: 'daily' }, status: 400, code: 'invalid_payload' },
      { name: 'no frequency', method: 'POST', path: '/v1/sites/mail-site/email-reports', who: 'member', body: {}, status: 400, code: 'invalid_payload' },
      { name: 'an unknown field', method: 'POST', path: '/v1/sites/mail-site/email-reports', who: 'member', body: { frequency: 'monthly', user_id: 'x' }, status: 400, code: 'invalid_payload' },
      { name: 'the same frequency twice', method: 'POST', path: '/v1/sites/mail-site/email-reports', who: 'member', body: { frequency: 'weekly' }, status: 409, code: 'already_subscribed' },
      { name: 'the admin token (no inbox)', method: 'POST', path: '/v1/sites/mail-site/email-reports', who: 'admin', body: { frequency: 'weekly' }, status: 403, code: 'forbidden_scope' },
      { name: 'a site of another workspace', method: 'POST', path: '/v1/sites/elsewhere-site/email-reports', who: 'member', body: { frequency: 'weekly' }, status: 404, code: 'not_found' },
      { name: "another member's, changed", method: 'PATCH', path: `/v1/sites/mail-site/email-reports/${mine.id}`, who: 'other', body: { frequency: 'monthly' }, status: 404, code: 'not_found' },
      { name: "another member's, deleted", method: 'DELETE', path: `/v1/sites/mail-site/email-reports/${mine.id}`, who: 'other', status: 404, code: 'not_found' },
      { name: "another member's, test-sent", method: 'POST', path: `/v1/sites/mail-site/email-reports/${mine.id}/test`, who: 'other', status: 404, code: 'not_found' },
      { name: 'an unknown id', method: 'PATCH', path: '/v1/sites/mail-site/email-reports/nope', who: 'member', body: { frequency: 'monthly' }, status: 404, code: 'not_found' },
      { name: 'a bad frequency on change', method: 'PATCH', path: `/v1/sites/mail-site/email-reports/${mine.id}`, who: 'member', body: { frequency: 'hourly' }, status: 400, code: 'invalid_payload' },
    ];
    for (const scenario of scenarios) {
      const as = scenario.who === 'admin' ? {} : (scenario.who === 'member' ? member : other).as();
      const response = await server.request(scenario.method, scenario.path, { ...as, body: scenario.body });
      expect(response.status, `${scenario.name}: ${response.text}`).toBe(scenario.status);
      expect(response.body.error.code, scenario.name).toBe(scenario.code);
    }
    // Nothing refused changed anything: the member still has exactly the one weekly subscription; the other none.
    expect((await server.request('GET', '/v1/sites/mail-site/email-reports', member.as())).body.email_reports).toEqual([mine]);
    expect((await server.request('GET', '/v1/sites/mail-site/email-reports', other.as())).body.email_reports).toEqual([]);
    // The owner's own monthly one and a change of frequency that collides.
    const monthly = await subscribe(member, 'monthly');
    expect(monthly.status).toBe(201);
    const collide = await server.request('PATCH', `/v1/sites/mail-site/email-reports/${monthly.body.id}`, { ...member.as(), body: { frequency: 'weekly' } });
    expect([collide.status, collide.body.error.code]).toEqual([409, 'already_subscribed']);
    expect((await server.request('DELETE', `/v1/sites/mail-site/email-reports/${mine.id}`, member.as())).status).toBe(204);
    const changed = await server.request('PATCH', `/v1/sites/mail-site/email-reports/${monthly.body.id}`, { ...member.as(), body: { frequency: 'weekly' } });
    expect(changed.body).toEqual({ ...monthly.body, frequency: 'weekly' });
  });

  it('claims a due report once: not before it is due, once after, and once across restarts (one mail per period)', async () => {
    const dataDir = makeTempDir();
    await server.close();
    await start({ dataDir });
    await seedWorkspace(server, 'mail', { sites: ['mail-site'] });
    const userId = await makeUser(context, 'member@example.com', { memberships: [['mail', 'viewer']] });
    member = await login(server, { email: 'member@example.com', password: goodPassword });
    expect((await subscribe(member)).status).toBe(201);
    // Subscribed on Wednesday: this week's Monday report was due before; nothing goes out.
    expect(await server.app.reportSchedule.runDue()).toBe(0);
    // Monday 2026-03-09 00:00 exactly: due.
    clock.advance(Date.parse('2026-03-09T00:00:00Z') - clock.now());
    expect(await server.app.reportSchedule.runDue()).toBe(1);
    expect(await server.app.reportSchedule.runDue()).toBe(0);
    await server.app.mailer.outbox.sendDue();
    const [first] = await smtp.waitFor(1);
    expect(first!.parsed.subject).toBe('Weekly report for Site mail-site: 2026-03-02 to 2026-03-08');
    await server.app.mailer.outbox.sendDue();

    // Down over the next Monday; back on Tuesday: the first pass at start sends it, once.
    await server.close();
    clock.advance(Date.parse('2026-03-17T08:00:00Z') - clock.now());
    await start({ dataDir, firstPassAtStart: true });
    const [, second] = await smtp.waitFor(2);
    expect(second!.parsed.subject).toBe('Weekly report for Site mail-site: 2026-03-09 to 2026-03-15');
    expect(second!.envelopeTo).toEqual(['member@example.com']);
    expect(await server.app.reportSchedule.runDue()).toBe(0);
    await server.app.mailer.outbox.sendDue();
    // And again after another restart at the same time: nothing more.
    await server.close();
    await start({ dataDir, firstPassAtStart: true });
    expect(await server.app.reportSchedule.runDue()).toBe(0);
    await server.app.mailer.outbox.sendDue();
    expect(smtp.received).toHaveLength(2);
    const rows = server.db.prepare("SELECT id, status, attempts FROM mail_outbox WHERE kind = 'report' ORDER BY id").all();
    expect(rows).toEqual([
      { id: expect.stringMatching(/:2026-03-09$/), status: 'sent', attempts: 1 },
      { id: expect.stringMatching(/:2026-03-16$/), status: 'sent', attempts: 1 },
    ]);
    // A member who leaves the workspace receives nothing more.
    server.db.prepare('DELETE FROM memberships WHERE user_id = ?').run(userId);
    clock.advance(7 * day);
    expect(await server.app.reportSchedule.runDue()).toBe(0);
  });

  it('retries a temporary SMTP refusal with backoff and fails a permanent one at once', async () => {
    const created = await subscribe(member);
    smtp.refuseNext(1, 451);
    const first = await server.request('POST', `/v1/sites/mail-site/email-reports/${created.body.id}/test`, member.as());
    expect(first.body.status).toBe('pending');
    expect((await server.request('GET', '/metrics')).text).toMatch(/^sightline_mail_outbox_depth 1$/m);
    // Not yet due again: a minute later, it is.
    expect(await server.app.mailer.outbox.sendDue()).toBe(0);
    clock.advance(60_000);
    expect(await server.app.mailer.outbox.sendDue()).toBe(1);
    await smtp.waitFor(1);
    expect(server.db.prepare('SELECT status, attempts FROM mail_outbox WHERE id = ?').get(first.body.id)).toEqual({ status: 'sent', attempts: 2 });
    expect((await server.request('GET', '/metrics')).text).toMatch(/^sightline_mail_outbox_depth 0$/m);

    smtp.refuseNext(1, 550);
    const refused = await server.request('POST', `/v1/sites/mail-site/email-reports/${created.body.id}/test`, member.as());
    expect(refused.body.status).toBe('failed');
    clock.advance(day);
    expect(await server.app.mailer.outbox.sendDue()).toBe(0);
    expect(smtp.received).toHaveLength(1);
  });

  it('refuses the settings with 409 smtp_not_configured without SMTP_URL; deleting still works', async () => {
    const created = (await subscribe(member)).body;
    await server.close();
    const dataDir = makeTempDir();
    await start({ dataDir, env: {} });
    await seedWorkspace(server, 'mail', { sites: ['mail-site'] });
    await makeUser(context, 'member@example.com', { memberships: [['mail', 'viewer']] });
    member = await login(server, { email: 'member@example.com', password: goodPassword });
    for (const [method, path, body] of [
      ['GET', '/v1/sites/mail-site/email-reports', undefined],
      ['POST', '/v1/sites/mail-site/email-reports', { frequency: 'weekly' }],
      ['PATCH', `/v1/sites/mail-site/email-reports/${created.id}`, { frequency: 'monthly' }],
      ['POST', `/v1/sites/mail-site/email-reports/${created.id}/test`, undefined],
    ] as const) {
      const response = await server.request(method, path, { ...member.as(), body });
      expect(response.status, `${method} ${path}`).toBe(409);
      expect(response.body).toEqual({ error: { code: 'smtp_not_configured', message: expect.any(String) } });
    }
    server.db.prepare("INSERT INTO email_report_subscriptions (id, site_id, user_id, frequency, created_at) VALUES ('s1', 'mail-site', ?, 'weekly', '2026-01-01T00:00:00.000Z')").run(member.userId);
    expect((await server.request('DELETE', '/v1/sites/mail-site/email-reports/s1', member.as())).status).toBe(204);
    // A foreign site is still the 404 of a missing one, not a hint about mail.
    expect((await server.request('GET', '/v1/sites/nope/email-reports', member.as())).status).toBe(404);
  });
});
