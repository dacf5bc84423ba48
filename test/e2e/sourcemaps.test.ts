// Source maps against the shipped server (a child process started as a user starts it): a real map from esbuild
// uploaded with the site bearer, an error event thrown by the minified script ingested, and list-v2 showing its
// frames in the TypeScript source. Then SIGTERM drains and exits 0.
import { describe, expect, it } from 'vitest';
import { buildCheckout, callLine, stackOf, throwLine, uploadBody } from '../sourcemaps/_maps.ts';
import { browserEvent, cleanExit, createSite, ingest, useShippedServers, utcDate } from './_server.ts';

const siteId = 'sourcemaps-e2e';
const servers = useShippedServers();

describe('the shipped server', () => {
  it('resolves the stack of an error event through the uploaded source map of its release', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    const script = await buildCheckout();
    const stack = stackOf(script, 'https://shop.example/assets/app.js');

    const uploaded = await server.request('POST', `/v1/sites/${siteId}/sourcemaps`, { token: siteId, body: uploadBody('v42', 'app.js', script.map) });
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(uploaded.body).toEqual({ size: Buffer.byteLength(script.map) });
    const [error] = await ingest(server, '/v1/events', siteId, [browserEvent(siteId, { type: 'error', props: { message: 'cart too large', stack, release: 'v42' } })]);

    const day = utcDate();
    const listed = await server.request('GET', `/v1/sites/${siteId}/events/list-v2?from=${day}&to=${day}`);
    expect(listed.status, listed.text).toBe(200);
    const item = listed.body.data.events.find((event: { id: string }) => event.id === error!.id);
    expect(item.resolved_stack[0]).toMatchObject({ file: 'app.js', original: { source: 'app.ts', line: throwLine } });
    expect(item.resolved_stack[1]).toMatchObject({ file: 'app.js', original: { source: 'app.ts', line: callLine } });
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
