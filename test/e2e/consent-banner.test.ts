// The consent banner against the shipped server (a child process started as a user starts it): the default before
// any save, a save with the admin token and X-Workspace-Id, a replay, a stale save, and the banner still there after
// a restart. Then SIGTERM drains and exits 0.
import { describe, expect, it } from 'vitest';
import { cleanExit, createSite, useShippedServers } from './_server.ts';

const siteId = 'consent-e2e';
const servers = useShippedServers();

const config = {
  title: 'Cookies on the shop',
  body: 'We count visits to improve the shop.',
  accept_label: 'Accept',
  reject_label: 'Reject',
  settings_label: 'Choose',
  categories: [{ key: 'analytics', label: 'Analytics', description: 'Visit counts.', required: false }],
  position: 'center',
  theme: { background: '#ffffff', text: '#000000', accent: '#ff6600' },
  privacy_policy_url: 'https://shop.example/privacy',
};

describe('the shipped server', () => {
  it('saves the consent banner with optimistic concurrency and idempotent replays, and keeps it across a restart', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    const workspace = await server.request('GET', `/v1/workspaces/ws-${siteId}`);
    const headers = { 'x-workspace-id': workspace.body.id as string };
    const path = `/v2/sites/${siteId}/consent-banner/config`;

    expect((await server.request('GET', path)).status).toBe(404);
    const initial = await server.request('GET', path, { headers });
    expect(initial.status, initial.text).toBe(200);
    expect(initial.body).toMatchObject({ config_version: 0, consent_revision: 1, updated_at: null });

    const body = { config_version: 0, idempotency_key: 'first-save', request_reconsent: true, config };
    const saved = await server.request('PUT', path, { headers, body });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ config_version: 1, consent_revision: 2, config });
    const replayed = await server.request('PUT', path, { headers, body });
    expect(replayed.body).toEqual(saved.body);
    const stale = await server.request('PUT', path, { headers, body: { ...body, idempotency_key: 'second-save' } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('stale_config_version');
    const markup = await server.request('PUT', path, { headers, body: { ...body, idempotency_key: 'third', config_version: 1, config: { ...config, title: '<img src=x onerror=alert(1)>' } } });
    expect(markup.status).toBe(400);
    expect(markup.body.error.details[0].path).toBe('/config/title');

    expect(await server.stop(), server.output()).toEqual(cleanExit);
    await server.restart();
    expect((await server.request('GET', `/v1${path}`, { headers })).body).toEqual(saved.body);
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
