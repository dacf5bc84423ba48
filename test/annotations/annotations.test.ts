// Annotations over HTTP (CONTRACT section 10): 1-280 characters of plain text at their edges, a real UTC day, the
// site's limit, personal ones invisible to others, viewers reading only, and summary-v2 listing those of its range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../_setup.ts';
import { createKey, manualClock, padTo } from '../admin/_helpers.ts';
import { goodPassword, login, makeUser, type SignedIn, startPeopleServer } from '../users/_users.ts';

const clock = manualClock('2026-04-03T12:00:00.000Z');
const site = 'alpha-site';
const url = `/v1/sites/${site}/annotations`;

let server: TestServer;
let ana: SignedIn;
let bob: SignedIn;
let viewer: SignedIn;

beforeAll(async () => {
  const started = await startPeopleServer(clock);
  server = started.server;
  await makeUser(started.context, 'ana@example.com', { memberships: [['alpha', 'analyst']] });
  await makeUser(started.context, 'bob@example.com', { memberships: [['alpha', 'analyst']] });
  await makeUser(started.context, 'vera@example.com', { memberships: [['alpha', 'viewer']] });
  ana = await login(server, { email: 'ana@example.com', password: goodPassword });
  bob = await login(server, { email: 'bob@example.com', password: goodPassword });
  viewer = await login(server, { email: 'vera@example.com', password: goodPassword });
});
afterAll(() => server.close());

describe('an annotation is a day and 1-280 characters of plain text', () => {
  it.each([
    ['1 character', { date: '2026-04-01', text: 'x' }, null],
    ['280 characters', { date: '2026-04-01', text: padTo(280) }, null],
    ['281 characters', { date: '2026-04-01', text: padTo(281) }, '/text'],
    ['280 emoji (astral characters count once)', { date: '2026-04-01', text: '🚀'.repeat(280) }, null],
    ['281 emoji', { date: '2026-04-01', text: '🚀'.repeat(281) }, '/text'],
    ['an empty text', { date: '2026-04-01', text: '' }, '/text'],
    ['only spaces', { date: '2026-04-01', text: '   ' }, '/text'],
    ['markup', { date: '2026-04-01', text: 'launch <b>day</b>' }, '/text'],
    ['a newline', { date: '2026-04-01', text: 'two\nlines' }, '/text'],
    ['a script URL', { date: '2026-04-01', text: 'javascript:alert(1)' }, '/text'],
    ['a comparison is plain text', { date: '2026-04-01', text: 'bounce rate < 40% after the launch & more' }, null],
    ['no such day', { date: '2026-02-30', text: 'x' }, '/date'],
    ['a time, not a day', { date: '2026-04-01T10:00:00Z', text: 'x' }, '/date'],
    ['an unknown field', { date: '2026-04-01', text: 'x', colour: 'red' }, '/colour'],
    ['visibility personal', { date: '2026-04-01', text: 'x', visibility: 'personal' }, null],
  ])('%s', async (_name, body, refusedAt) => {
    const response = await server.request('POST', url, { body });
    if (refusedAt === null) {
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({ site_id: site, date: body.date, text: body.text, owner_id: 'admin', visibility: (body as { visibility?: string }).visibility ?? 'site' });
      expect((await server.request('DELETE', `${url}/${response.body.id}`)).status).toBe(204);
      return;
    }
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(refusedAt);
  });

  it('keeps at most 500 annotations per site: the 500th is accepted, the 501st refused', async () => {
    const many = '/v1/sites/alpha-many/annotations';
    expect((await server.request('POST', '/workspaces/alpha/sites', { body: { id: 'alpha-many', name: 'Many' } })).status).toBe(201);
    for (let index = 1; index <= 500; index++) {
      const response = await server.request('POST', many, { body: { date: '2026-04-01', text: `note ${index}` } });
      expect(response.status, `annotation ${index}: ${response.text}`).toBe(201);
    }
    const refused = await server.request('POST', many, { body: { date: '2026-04-01', text: 'one too many' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_payload');
  });
});

describe('who sees annotations, and summary-v2\'s meta.annotations', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const add = async (name: string, body: Record<string, unknown>, as: Record<string, unknown>) => {
      const response = await server.request('POST', url, { body, ...as });
      expect(response.status, response.text).toBe(201);
      ids[name] = response.body.id;
    };
    await add('before', { date: '2026-03-31', text: 'the day before' }, ana.as());
    await add('launch', { date: '2026-04-01', text: 'Launch' }, ana.as());
    await add('private', { date: '2026-04-02', text: 'Ana\'s note', visibility: 'personal' }, ana.as());
    await add('after', { date: '2026-04-03', text: 'the day after' }, bob.as());
  });

  const shown = async (as: Record<string, unknown>, from = '2026-04-01', to = '2026-04-02') => {
    const response = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?from=${from}&to=${to}`, as);
    expect(response.status, response.text).toBe(200);
    return response.body.meta.annotations.map((annotation: { text: string }) => annotation.text);
  };

  it('lists the range\'s annotations by date: the site\'s, and the reader\'s personal ones', async () => {
    expect(await shown(ana.as())).toEqual(['Launch', 'Ana\'s note']);
    expect(await shown(bob.as())).toEqual(['Launch']);
    expect(await shown(viewer.as())).toEqual(['Launch']);
    expect(await shown(ana.as(), '2026-03-31', '2026-04-03')).toEqual(['the day before', 'Launch', 'Ana\'s note', 'the day after']);
    const list = await server.request('GET', `${url}?from=2026-04-02&to=2026-04-03`, ana.as());
    expect(list.body.annotations.map((annotation: { text: string }) => annotation.text)).toEqual(['Ana\'s note', 'the day after']);
    expect((await server.request('GET', `${url}?from=April`, ana.as())).status).toBe(400);
  });

  it.each([
    ['a viewer may not annotate', () => viewer.as(), 'POST', null, 403],
    ['Bob cannot see Ana\'s personal note', () => bob.as(), 'PATCH', 'private', 404],
    ['Bob may not change Ana\'s site note', () => bob.as(), 'PATCH', 'launch', 403],
    ['Bob may not delete it', () => bob.as(), 'DELETE', 'launch', 403],
    ['Ana changes her note', () => ana.as(), 'PATCH', 'launch', 200],
    ['an admin changes Bob\'s note', () => ({}), 'PATCH', 'after', 200],
  ] as const)('%s', async (_name, as, method, which, status) => {
    const path = which === null ? url : `${url}/${ids[which]}`;
    const body = method === 'DELETE' ? {} : { body: method === 'POST' ? { date: '2026-04-01', text: 'x' } : { text: 'changed' } };
    const response = await server.request(method, path, { ...as(), ...body });
    expect(response.status, response.text).toBe(status);
  });

  it('another workspace sees no such site', async () => {
    const betaAdmin = (await createKey(server, 'beta', ['admin'])).plaintext;
    expect((await server.request('GET', url, { token: betaAdmin })).status).toBe(404);
    expect((await server.request('DELETE', `/v1/sites/beta-site/annotations/${ids.launch}`, { token: betaAdmin })).status).toBe(404);
  });
});
