// The consent banner configuration over HTTP: every bounded field at its edge, markup, CSS, scripts and unknown
// fields refused with details, optimistic concurrency, idempotent replays, reconsent, the X-Workspace-Id rule,
// tenant isolation and scopes, and the banner leaving with its site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';
import { createKey, manualClock } from '../admin/_helpers.ts';

let server: TestServer;
const clock = manualClock('2026-03-01T12:00:00.000Z');
const tokens: Record<string, string> = {};
let alphaId = '';
let betaId = '';

beforeAll(async () => {
  server = await startTestServer({ clock });
  alphaId = (await seedWorkspace(server, 'alpha', { sites: ['alpha-site', 'alpha-edges', 'alpha-doomed'] })).id;
  betaId = (await seedWorkspace(server, 'beta', { sites: ['beta-site'] })).id;
  tokens.alphaRead = (await createKey(server, 'alpha', ['query:read'])).plaintext;
  tokens.alphaAdmin = (await createKey(server, 'alpha', ['admin'])).plaintext;
  tokens.alphaIngest = (await createKey(server, 'alpha', ['ingest:write'])).plaintext;
  tokens.betaAdmin = (await createKey(server, 'beta', ['admin'])).plaintext;
});
afterAll(() => server.close());

const url = (siteId: string, prefix = '') => `${prefix}/v2/sites/${siteId}/consent-banner/config`;

export function validConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Cookies on Example',
    body: 'We measure visits to improve the site.\nYou can change your mind at any time.',
    accept_label: 'Accept',
    reject_label: 'Reject',
    settings_label: 'Choose',
    categories: [
      { key: 'necessary', label: 'Necessary', description: 'Always on.', required: true },
      { key: 'analytics', label: 'Analytics', description: 'Visit counts.', required: false },
    ],
    position: 'bottom',
    theme: { background: '#FFFFFF', text: '#111827', accent: '#2563eb' },
    privacy_policy_url: 'https://example.com/privacy?lang=en#cookies',
    ...overrides,
  };
}

let keyCounter = 0;
const freshKey = () => `save-${++keyCounter}`;

interface SaveOptions {
  token?: string | null;
  workspace?: string | null;
  prefix?: string;
}

function save(siteId: string, body: unknown, options: SaveOptions = {}): Promise<TestResponse> {
  const workspace = options.workspace === undefined ? alphaId : options.workspace;
  return server.request('PUT', url(siteId, options.prefix), {
    token: options.token === undefined ? testAdminToken : options.token,
    body,
    headers: workspace === null ? {} : { 'x-workspace-id': workspace },
  });
}

function read(siteId: string, options: SaveOptions = {}): Promise<TestResponse> {
  const workspace = options.workspace === undefined ? alphaId : options.workspace;
  return server.request('GET', url(siteId, options.prefix), {
    token: options.token === undefined ? testAdminToken : options.token,
    headers: workspace === null ? {} : { 'x-workspace-id': workspace },
  });
}

/** Saves `config` on top of whatever the site holds now. */
async function saveCurrent(siteId: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<TestResponse> {
  const current = await read(siteId);
  return save(siteId, { config_version: current.body.config_version, idempotency_key: freshKey(), request_reconsent: false, config, ...extra });
}

function expectInvalid(response: TestResponse, path: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body.error.code).toBe('invalid_payload');
  expect(response.body.error.details.map((detail: { path: string }) => detail.path), response.text).toContain(path);
}

describe('reading and saving', () => {
  it('answers a default banner at config_version 0 before the first save, then the saved one', async () => {
    const before = await read('alpha-site');
    expect(before.status, before.text).toBe(200);
    expect(before.body).toMatchObject({ config_version: 0, consent_revision: 1, updated_at: null });
    expect(before.body.config.categories.length).toBeGreaterThan(0);

    const saved = await save('alpha-site', { config_version: 0, idempotency_key: freshKey(), request_reconsent: false, config: validConfig() });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toEqual({ config_version: 1, consent_revision: 1, config: validConfig(), updated_at: clock.iso() });
    expect((await read('alpha-site')).body).toEqual(saved.body);
    // The /v1 form of the route reads the same banner.
    expect((await read('alpha-site', { prefix: '/v1' })).body).toEqual(saved.body);
  });

  it('refuses a stale config_version with 409 stale_config_version, and one from the future too', async () => {
    const current = (await read('alpha-site')).body.config_version as number;
    clock.advance(1000);
    const next = await save('alpha-site', { config_version: current, idempotency_key: freshKey(), request_reconsent: false, config: validConfig({ title: 'Second' }) });
    expect(next.status, next.text).toBe(200);
    expect(next.body.config_version).toBe(current + 1);
    for (const version of [current, 0, current + 5]) {
      const stale = await save('alpha-site', { config_version: version, idempotency_key: freshKey(), request_reconsent: false, config: validConfig({ title: 'Lost update' }) });
      expect(stale.status, stale.text).toBe(409);
      expect(stale.body.error.code).toBe('stale_config_version');
    }
    expect((await read('alpha-site')).body.config.title).toBe('Second');
  });

  it('replays the answer of a repeated save (same key, same body) without a new version, even after later saves', async () => {
    const current = (await read('alpha-site')).body;
    clock.advance(1000);
    const body = { config_version: current.config_version, idempotency_key: 'replay-me', request_reconsent: true, config: validConfig({ title: 'Replayed' }) };
    const first = await save('alpha-site', body);
    expect(first.status, first.text).toBe(200);
    clock.advance(1000);
    const again = await save('alpha-site', body);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await read('alpha-site')).body).toEqual(first.body);
    // A later save moves on; the repeat still answers what the first save answered, and changes nothing.
    const later = await saveCurrent('alpha-site', validConfig({ title: 'Later' }));
    expect(later.status).toBe(200);
    const late = await save('alpha-site', body);
    expect(late.body).toEqual(first.body);
    expect((await read('alpha-site')).body.config.title).toBe('Later');
    // The audit log has one row per save made, none for replays.
    const audit = await server.request('GET', '/v1/workspaces/alpha/audit?limit=1000');
    const saves = audit.body.entries.filter((entry: { action: string; target: string }) => entry.action === 'consent_banner.update' && entry.target === 'alpha-site');
    expect(saves.map((entry: { metadata: { config_version: number } }) => entry.metadata.config_version).sort()).toEqual([1, 2, 3, 4]);
  });

  it('refuses the same key with another body: 409 idempotency_key_reused', async () => {
    const current = (await read('alpha-site')).body;
    const body = { config_version: current.config_version, idempotency_key: 'reused', request_reconsent: false, config: validConfig({ title: 'One' }) };
    expect((await save('alpha-site', body)).status).toBe(200);
    const other = await save('alpha-site', { ...body, config: validConfig({ title: 'Two' }) });
    expect(other.status, other.text).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const otherChoice = await save('alpha-site', { ...body, request_reconsent: true });
    expect(otherChoice.body.error.code).toBe('idempotency_key_reused');
  });

  it('bumps consent_revision only when request_reconsent is true', async () => {
    const before = (await read('alpha-site')).body;
    const quiet = await saveCurrent('alpha-site', validConfig({ title: 'Quiet' }));
    expect(quiet.body.consent_revision).toBe(before.consent_revision);
    const loud = await saveCurrent('alpha-site', validConfig({ title: 'Loud' }), { request_reconsent: true });
    expect(loud.body.consent_revision).toBe(before.consent_revision + 1);
    expect(loud.body.config_version).toBe(before.config_version + 2);
  });
});

describe('the X-Workspace-Id rule, tenant isolation and scopes', () => {
  it('the admin token without X-Workspace-Id, or with another workspace, is the 404 of a missing site', async () => {
    const missing = await read('no-such-site');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    for (const workspace of [null, betaId, 'beta', '', 'not-a-workspace', crypto.randomUUID()]) {
      const got = await read('alpha-site', { workspace });
      expect(got.status, `X-Workspace-Id ${workspace}`).toBe(404);
      expect(got.text).toBe(missing.text);
      const put = await save('alpha-site', { config_version: 0, idempotency_key: freshKey(), request_reconsent: false, config: validConfig() }, { workspace });
      expect(put.status).toBe(404);
      expect(put.text).toBe(missing.text);
    }
    // The workspace's slug, and its id in upper case, name it as well.
    expect((await read('alpha-site', { workspace: 'alpha' })).status).toBe(200);
    expect((await read('alpha-site', { workspace: alphaId.toUpperCase() })).status).toBe(200);
    // beta's site with alpha's id: the same 404.
    expect((await read('beta-site', { workspace: alphaId })).text).toBe(missing.text);
    expect((await read('beta-site', { workspace: betaId })).status).toBe(200);
  });

  it('keys: a key of another workspace gets the 404 of a missing site; reads need query:read, saves admin', async () => {
    const missing = await read('no-such-site', { token: tokens.alphaAdmin!, workspace: null });
    expect(missing.status).toBe(404);
    const foreign = await read('alpha-site', { token: tokens.betaAdmin!, workspace: null });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    const foreignWithHeader = await read('alpha-site', { token: tokens.betaAdmin!, workspace: alphaId });
    expect(foreignWithHeader.text).toBe(missing.text);
    const foreignSave = await save('alpha-site', { config_version: 0, idempotency_key: freshKey(), request_reconsent: false, config: validConfig() }, { token: tokens.betaAdmin!, workspace: null });
    expect(foreignSave.text).toBe(missing.text);

    // A key needs no X-Workspace-Id, but a wrong one is refused like for the admin token.
    expect((await read('alpha-site', { token: tokens.alphaRead!, workspace: null })).status).toBe(200);
    expect((await read('alpha-site', { token: tokens.alphaRead!, workspace: betaId })).text).toBe(missing.text);
    expect((await read('alpha-site', { token: tokens.alphaAdmin!, workspace: null })).status).toBe(200);
    const ingestRead = await read('alpha-site', { token: tokens.alphaIngest!, workspace: null });
    expect(ingestRead.status).toBe(403);
    expect(ingestRead.body.error.code).toBe('forbidden_scope');

    const current = (await read('alpha-site')).body.config_version;
    const body = () => ({ config_version: current, idempotency_key: freshKey(), request_reconsent: false, config: validConfig({ title: 'By key' }) });
    for (const token of [tokens.alphaRead!, tokens.alphaIngest!]) {
      const refused = await save('alpha-site', body(), { token, workspace: null });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden_scope');
    }
    expect((await save('alpha-site', body(), { token: null })).status).toBe(401);
    expect((await save('alpha-site', body(), { token: 'sk_alpha_wrong' })).status).toBe(401);
    const byKey = await save('alpha-site', body(), { token: tokens.alphaAdmin!, workspace: null });
    expect(byKey.status, byKey.text).toBe(200);
    const audit = await server.request('GET', '/v1/workspaces/alpha/audit?limit=1000');
    expect(audit.body.entries.find((entry: { action: string; actor_kind: string }) => entry.action === 'consent_banner.update' && entry.actor_kind === 'apiKey')).toBeDefined();
  });

  it('checks access before the body: a foreign caller learns nothing from a bad body', async () => {
    const refused = await save('alpha-site', { nonsense: true }, { token: tokens.betaAdmin!, workspace: null });
    expect(refused.status).toBe(404);
  });

  it('deleting the site deletes its banner and its saves', async () => {
    expect((await saveCurrent('alpha-doomed', validConfig())).status).toBe(200);
    const count = () => (server.db.prepare("SELECT (SELECT count(*) FROM consent_banners WHERE site_id = 'alpha-doomed') + (SELECT count(*) FROM consent_banner_saves WHERE site_id = 'alpha-doomed') AS n").get() as { n: number }).n;
    expect(count()).toBe(2);
    const deleted = await server.request('DELETE', '/v1/workspaces/alpha/sites/alpha-doomed');
    expect(deleted.status, deleted.text).toBe(204);
    expect(count()).toBe(0);
  });
});

describe('every field at its edges', () => {
  const at = (length: number, fill = 'a') => fill.repeat(length);
  const category = (key: string) => ({ key, label: 'L', description: 'D', required: false });

  it.each([
    ['title', 120, 121],
    ['body', 2000, 2001],
    ['accept_label', 40, 41],
    ['reject_label', 40, 41],
    ['settings_label', 40, 41],
  ])('%s: %i characters saved, %i refused', async (field, longest, tooLong) => {
    const accepted = await saveCurrent('alpha-edges', validConfig({ [field]: at(longest) }));
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.config[field]).toHaveLength(longest);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ [field]: at(tooLong) })), `/config/${field}`);
    // Characters, not UTF-16 units: the longest title in an astral script passes too.
    expect((await saveCurrent('alpha-edges', validConfig({ [field]: at(longest, '𝒜') }))).status).toBe(200);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ [field]: '' })), `/config/${field}`);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ [field]: '   ' })), `/config/${field}`);
  });

  it('categories: 10 saved, 11 refused, none is fine; keys unique and of their format', async () => {
    const ten = Array.from({ length: 10 }, (_, index) => category(`c${index}`));
    expect((await saveCurrent('alpha-edges', validConfig({ categories: ten }))).status).toBe(200);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: [...ten, category('c10')] })), '/config/categories');
    expect((await saveCurrent('alpha-edges', validConfig({ categories: [] }))).status).toBe(200);
    const duplicate = await saveCurrent('alpha-edges', validConfig({ categories: [category('a'), category('b'), category('a')] }));
    expectInvalid(duplicate, '/config/categories/2/key');
    expect(duplicate.body.error.details[0].message).toContain('category 0');
    const longestKey = 'k' + 'a'.repeat(31);
    expect((await saveCurrent('alpha-edges', validConfig({ categories: [category(longestKey)] }))).status).toBe(200);
    for (const key of [longestKey + 'a', '', 'Analytics', '1st', 'ads-tracking', 'a b', '_x']) {
      expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: [category(key)] })), '/config/categories/0/key');
    }
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: [{ ...category('a'), label: at(41) }] })), '/config/categories/0/label');
    expect((await saveCurrent('alpha-edges', validConfig({ categories: [{ ...category('a'), description: at(500) }] }))).status).toBe(200);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: [{ ...category('a'), description: at(501) }] })), '/config/categories/0/description');
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: [{ ...category('a'), required: 'yes' }] })), '/config/categories/0/required');
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: {} })), '/config/categories');
  });

  it('position and theme colours', async () => {
    for (const position of ['top', 'center', 'bottom']) expect((await saveCurrent('alpha-edges', validConfig({ position }))).status).toBe(200);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ position: 'left' })), '/config/position');
    for (const colour of ['#fff', 'red', '#12345g', '#1234567', 'rgb(0,0,0)', '#123456;background:url(x)']) {
      expectInvalid(await saveCurrent('alpha-edges', validConfig({ theme: { background: colour, text: '#000000', accent: '#000000' } })), '/config/theme/background');
    }
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ theme: { background: '#000000', text: '#000000' } })), '/config/theme/accent');
  });

  it('privacy_policy_url must be https', async () => {
    for (const link of ['javascript:alert(1)', 'JavaScript:alert(1)', 'http://example.com/privacy', 'data:text/html,hi', '//example.com/p', 'https://', 'https://user:pw@example.com/', 'https://example.com/<script>', 'https://exa mple.com/', 'ftp://example.com/', `https://example.com/${'a'.repeat(2029)}`]) {
      expectInvalid(await saveCurrent('alpha-edges', validConfig({ privacy_policy_url: link })), '/config/privacy_policy_url');
    }
    const longest = `https://example.com/${'a'.repeat(2028)}`;
    expect(longest).toHaveLength(2048);
    expect((await saveCurrent('alpha-edges', validConfig({ privacy_policy_url: longest }))).status).toBe(200);
  });

  it.each([
    ['an HTML tag', '<b>Cookies</b>'],
    ['a script tag', 'Hi <script>alert(1)</script>'],
    ['a closing tag alone', 'Cookies</div>'],
    ['a tag with spaces', '< img src=x onerror=alert(1)>'],
    ['an HTML comment', 'a <!-- b --> c'],
    ['a character reference', 'Cookies &lt;b&gt;'],
    ['a numeric character reference', 'java&#115;cript'],
    ['a javascript: URL', 'Click javascript:alert(1)'],
    ['a data: URL', 'see data:text/html;base64,PGI+'],
    ['an event handler', 'x onclick=alert(1)'],
    ['a CSS rule', '.banner { color: red }'],
    ['a style attribute', 'style="color:red"'],
    ['an @import', '@import "x.css"'],
    ['a CSS url()', 'background: url(https://x/y.png)'],
    ['a NUL', 'a\u0000b'],
    ['a tab', 'a\tb'],
    ['a right-to-left override', 'abc\u202edcb'],
    ['a line separator', 'a\u2028b'],
  ])('refuses %s in every text field', async (_name, text) => {
    for (const field of ['title', 'accept_label', 'body']) {
      expectInvalid(await saveCurrent('alpha-edges', validConfig({ [field]: text })), `/config/${field}`);
    }
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ categories: [{ ...category('a'), description: text }] })), '/config/categories/0/description');
  });

  it.each([
    ['a comparison', 'Prices < 5 € and > 2 €'],
    ['an ampersand', 'Terms & Conditions'],
    ['JavaScript named in a sentence', 'This site needs JavaScript: please enable it.'],
    ['your data named in a sentence', 'Your data: analytics/marketing choices are saved.'],
    ['the freedom of expression', 'freedom of expression (Article 10)'],
  ])('keeps plain text that only looks close: %s', async (_name, text) => {
    const saved = await saveCurrent('alpha-edges', validConfig({ title: text }));
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.config.title).toBe(text);
  });

  it('a newline is fine in the body and descriptions, not in the title or labels', async () => {
    expect((await saveCurrent('alpha-edges', validConfig({ body: 'one\ntwo\n\nthree' }))).status).toBe(200);
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ title: 'one\ntwo' })), '/config/title');
    expectInvalid(await saveCurrent('alpha-edges', validConfig({ settings_label: 'one\ntwo' })), '/config/settings_label');
  });

  it('refuses unknown fields at every level, naming each', async () => {
    const current = (await read('alpha-edges')).body.config_version;
    const body = { config_version: current, idempotency_key: freshKey(), request_reconsent: false, extra: 1, config: validConfig({ css: 'x', theme: { background: '#000000', text: '#000000', accent: '#000000', font: 'Arial' }, categories: [{ ...category('a'), html: '<b>' }] }) };
    const refused = await save('alpha-edges', body);
    expect(refused.status).toBe(400);
    const paths = refused.body.error.details.map((detail: { path: string }) => detail.path);
    expect(paths).toEqual(expect.arrayContaining(['/extra', '/config/css', '/config/theme/font', '/config/categories/0/html']));
    expect(refused.body.error.details.find((detail: { path: string }) => detail.path === '/extra').message).toBe('is not a known field');
  });

  it('refuses missing and mistyped envelope fields', async () => {
    const base = { config_version: 0, idempotency_key: freshKey(), request_reconsent: false, config: validConfig() };
    for (const [field, value] of [['config_version', -1], ['config_version', 1.5], ['config_version', '0'], ['idempotency_key', ''], ['idempotency_key', 'a'.repeat(129)], ['idempotency_key', 'has space'], ['request_reconsent', 'true'], ['request_reconsent', undefined], ['config', undefined]] as const) {
      expectInvalid(await save('alpha-edges', { ...base, [field]: value }), `/${field}`);
    }
    expect((await save('alpha-edges', { ...base, config_version: (await read('alpha-edges')).body.config_version, idempotency_key: 'k'.repeat(128) })).status).toBe(200);
    const notJson = await server.request('PUT', url('alpha-edges'), { rawBody: '{', headers: { 'content-type': 'application/json', 'x-workspace-id': alphaId } });
    expect(notJson.body.error.code).toBe('invalid_json');
    const wrongType = await server.request('PUT', url('alpha-edges'), { rawBody: '{}', headers: { 'content-type': 'text/plain', 'x-workspace-id': alphaId } });
    expect(wrongType.status).toBe(415);
    const tooLarge = await server.request('PUT', url('alpha-edges'), { rawBody: `{"a":"${'x'.repeat(256 * 1024)}"}`, headers: { 'content-type': 'application/json', 'x-workspace-id': alphaId } });
    expect(tooLarge.status).toBe(413);
  });
});
