// The bundled server as a user starts it, with SMTP_URL pointing at a real SMTP server (smtp-server): an invitation
// arrives by mail and its link makes the account; the new member subscribes to a weekly report and sends a test
// now, which arrives with both parts and the one-click unsubscribe link, and that link unsubscribes without a
// session; `sightline report send` mails a one-off from the same data directory.
import { describe, expect, it } from 'vitest';
import { startSmtpReceiver, headerOf, type SmtpReceiver } from '../mail/_smtp.ts';
import { parseJsonOutput, runCli } from '../cli/cli-helpers.ts';
import { browserEvent, createSite, ingest, useShippedServers, utcDate } from './_server.ts';

let smtp: SmtpReceiver | undefined;
const servers = useShippedServers({ testTimeout: 120_000, afterEachTest: () => smtp?.close() });

describe('e-mail reports on the shipped server', () => {
  it('mails an invitation, a test report with a working unsubscribe link, and a one-off from the CLI', async () => {
    smtp = await startSmtpReceiver();
    const mailEnv = { SMTP_URL: smtp.url, SMTP_FROM: 'Sightline <reports@example.com>' };
    const server = await servers.start(mailEnv);
    await createSite(server, 'mailshop');
    await ingest(server, '/v1/s2s/events', 'mailshop', [browserEvent('mailshop', { ts: `${utcDate(-8)}T10:00:00Z` }), browserEvent('mailshop', { anon_id: 'visitor-2', ts: `${utcDate(-3)}T10:00:00Z` })]);

    const invited = await server.request('POST', '/v1/workspaces/ws-mailshop/invitations', { body: { email: 'reader@example.com', role: 'viewer' } });
    expect(invited.status, invited.text).toBe(201);
    const [invitation] = await smtp.waitFor(1);
    const token = new URL(invitation!.parsed.text!.match(/Accept: (\S+)/)![1]!).hash.split('token=')[1]!;
    expect((await server.request('POST', '/v1/invitations/accept', { token: null, body: { token, password: 'a long enough passphrase' } })).status).toBe(200);
    const login = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'reader@example.com', password: 'a long enough passphrase' } });
    const session = { token: null, headers: { cookie: login.headers.get('set-cookie')!.split(';')[0]!, 'x-sightline-csrf': login.body.csrf as string } };

    const subscribed = await server.request('POST', '/v1/sites/mailshop/email-reports', { ...session, body: { frequency: 'weekly' } });
    expect(subscribed.status, subscribed.text).toBe(201);
    const test = await server.request('POST', `/v1/sites/mailshop/email-reports/${subscribed.body.id}/test`, session);
    expect(test.body.status).toBe('sent');
    const [, report] = await smtp.waitFor(2);
    expect(report!.envelopeTo).toEqual(['reader@example.com']);
    expect(report!.parsed.subject).toMatch(/^\[Test\] Weekly report for Site mailshop: \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/);
    expect(report!.parsed.text).toContain('Visitors: ');
    expect(report!.parsed.html).toContain('Top pages');
    expect(headerOf(report!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // PUBLIC_URL unset: the link points at http://HOST:PORT as configured; its path and token work on this server.
    const link = new URL(headerOf(report!, 'list-unsubscribe').slice(1, -1));
    const oneClick = await fetch(`${server.url}${link.pathname}${link.search}`, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(oneClick.status).toBe(200);
    expect((await server.request('GET', '/v1/sites/mailshop/email-reports', session)).body.email_reports).toEqual([]);

    const cli = await runCli(['report', 'send', '--site', 'mailshop', '--to', 'boss@example.com', '--frequency', 'monthly', '--json'], { DATA_DIR: server.dataDir, ...mailEnv });
    expect(cli.code, cli.stderr).toBe(0);
    expect(parseJsonOutput(cli)).toMatchObject({ site: 'mailshop', to: 'boss@example.com', frequency: 'monthly' });
    const [, , oneOff] = await smtp.waitFor(3);
    expect(oneOff!.envelopeTo).toEqual(['boss@example.com']);
    expect(oneOff!.parsed.subject).toMatch(/^Monthly report for Site mailshop/);
    expect(oneOff!.parsed.headers.has('list-unsubscribe')).toBe(false);

    // Refusals name what is wrong: an unknown site, a bad address, no SMTP.
    const unknown = await runCli(['report', 'send', '--site', 'nope', '--to', 'boss@example.com'], { DATA_DIR: server.dataDir, ...mailEnv });
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('No site nope')]);
    const badAddress = await runCli(['report', 'send', '--site', 'mailshop', '--to', 'not-an-address'], { DATA_DIR: server.dataDir, ...mailEnv });
    expect([badAddress.code, badAddress.stderr]).toEqual([1, expect.stringContaining('--to')]);
    const noSmtp = await runCli(['report', 'send', '--site', 'mailshop', '--to', 'boss@example.com'], { DATA_DIR: server.dataDir, SMTP_URL: undefined, SMTP_FROM: undefined });
    expect([noSmtp.code, noSmtp.stderr]).toEqual([1, expect.stringContaining('smtp_not_configured')]);
    expect(smtp.received).toHaveLength(3);
  });
});
