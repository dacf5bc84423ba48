// Invitations are also mailed when SMTP is configured (CONTRACT 9 and 13): the link in the mail is the one the
// answer shows once, and accepting it through the mail's link works. Real app, real SMTP server (smtp-server).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser } from '../users/_users.ts';
import { type SmtpReceiver, startSmtpReceiver } from './_smtp.ts';

describe('invitation mail', () => {
  let smtp: SmtpReceiver;
  let server: TestServer;
  let context: AppContext;

  beforeEach(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({
      clock: manualClock('2026-03-01T12:00:00.000Z'),
      env: { SMTP_URL: smtp.url, SMTP_FROM: 'Sightline <people@example.com>' },
      extend: (_app, appContext) => (context = appContext),
    });
    await seedWorkspace(server, 'team', { sites: ['team-site'] });
  });
  afterEach(async () => {
    await server.close();
    await smtp.close();
  });

  it('mails the link the answer shows once, with a text and an HTML part; the mailed link accepts', async () => {
    await makeUser(context, 'boss@example.com', { memberships: [['team', 'owner']] });
    const boss = await login(server, { email: 'boss@example.com', password: goodPassword });
    const created = await server.request('POST', '/v1/workspaces/team/invitations', { ...boss.as(), body: { email: ' Newbie@Example.com', role: 'analyst' } });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['expires_at', 'id', 'url']);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelopeTo).toEqual(['newbie@example.com']);
    expect(mail!.parsed.subject).toBe('You are invited to Workspace team on Sightline');
    expect(mail!.parsed.text).toContain(`Accept: ${created.body.url}`);
    expect(mail!.parsed.text).toContain('as an analyst');
    expect(mail!.parsed.html).toContain(created.body.url.replaceAll('&', '&amp;'));
    expect(mail!.parsed.html).not.toMatch(/<img|<script/i);
    // Never stored: the token is nowhere in the database, the outbox included.
    const token = new URL(created.body.url).hash.split('token=')[1]!;
    expect(JSON.stringify(server.db.prepare('SELECT * FROM mail_outbox').all())).not.toContain(token);

    const mailedToken = new URL(mail!.parsed.text!.match(/Accept: (\S+)/)![1]!).hash.split('token=')[1]!;
    const accepted = await server.request('POST', '/v1/invitations/accept', { token: null, body: { token: mailedToken, password: 'a long enough passphrase' } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.role).toBe('analyst');
  });
});
