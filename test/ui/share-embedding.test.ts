// A share link's embedding (docs/admin-ui.md, "Embedding") and its site's name: embed_origins validated as origins
// (at most 10), the dashboard page opened with ?embed=<link id> framed only by those origins (frame-ancestors lists
// them, never *; no X-Frame-Options), every other page and every link without origins, revoked or unknown kept at
// frame-ancestors 'none'; GET /v1/sites/:siteId/share-info gives the link's site name to its own token only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'acme', { sites: ['blog', 'shop'] });
});
afterAll(() => server.close());

const origins = (count: number) => Array.from({ length: count }, (_, index) => `https://site${index}.example`);

async function create(body: Record<string, unknown>, site = 'blog') {
  return server.request('POST', `/v1/sites/${site}/share-links`, { body: { label: 'Embedded', ...body } });
}

async function page(query: string) {
  const response = await fetch(`${server.url}/${query}`);
  await response.arrayBuffer();
  return { csp: response.headers.get('content-security-policy') ?? '', frameOptions: response.headers.get('x-frame-options') };
}

const frameAncestors = (csp: string) => csp.split('; ').find((directive) => directive.startsWith('frame-ancestors'));

describe('embed_origins', () => {
  it.each([
    ['none given', {}, 201, []],
    ['an empty list', { embed_origins: [] }, 201, []],
    ['one https origin', { embed_origins: ['https://intranet.example'] }, 201, ['https://intranet.example']],
    ['http with a port, duplicates once', { embed_origins: ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'] }, 201, ['http://127.0.0.1:8080']],
    ['10 origins, the most', { embed_origins: origins(10) }, 201, origins(10)],
    ['11 origins', { embed_origins: origins(11) }, 400, undefined],
    ['a wildcard', { embed_origins: ['*'] }, 400, undefined],
    ['a wildcard host', { embed_origins: ['https://*.example'] }, 400, undefined],
    ['a path', { embed_origins: ['https://intranet.example/board'] }, 400, undefined],
    ['a trailing slash', { embed_origins: ['https://intranet.example/'] }, 400, undefined],
    ['another scheme', { embed_origins: ['ftp://intranet.example'] }, 400, undefined],
    ['upper case (not as a browser sends it)', { embed_origins: ['https://Intranet.example'] }, 400, undefined],
    ['a semicolon that would end the directive', { embed_origins: ['https://a.example;script-src'] }, 400, undefined],
    ['a space that would add a source', { embed_origins: ['https://a.example *'] }, 400, undefined],
    ['an IPv6 literal with a port', { embed_origins: ['http://[::1]:8080'] }, 201, ['http://[::1]:8080']],
    ['not a list', { embed_origins: 'https://intranet.example' }, 400, undefined],
  ])('%s', async (_name, body, status, stored) => {
    const response = await create(body);
    expect(response.status, response.text).toBe(status);
    if (status === 201) {
      expect(response.body.embed_origins).toEqual(stored);
      const listed = await server.request('GET', '/v1/sites/blog/share-links');
      expect(listed.body.share_links.find((link: { id: string }) => link.id === response.body.id).embed_origins).toEqual(stored);
    } else {
      expect(response.body.error.code).toBe('invalid_payload');
      expect(response.body.error.details[0].path).toMatch(/^\/embed_origins/);
    }
  });
});

describe('the embedding page\'s frame-ancestors', () => {
  it('lists the link\'s origins on the page it names, and only there', async () => {
    const link = (await create({ embed_origins: ['https://intranet.example', 'http://127.0.0.1:8080'] })).body;
    const embedded = await page(`?site=blog&embed=${link.id}`);
    expect(frameAncestors(embedded.csp)).toBe('frame-ancestors https://intranet.example http://127.0.0.1:8080');
    expect(embedded.frameOptions).toBeNull();
    expect(embedded.csp).toContain("script-src 'self'");
    // Every other page, and the page's scripts, stay unframeable.
    for (const other of ['', '?site=blog']) {
      const plain = await page(other);
      expect(frameAncestors(plain.csp)).toBe("frame-ancestors 'none'");
      expect(plain.frameOptions).toBe('DENY');
    }
  });

  it.each([
    ['a link without origins', async () => (await create({})).body.id],
    ['an unknown link', async () => '00000000-0000-4000-8000-000000000000'],
    ['a malformed id', async () => 'x'.repeat(65)],
    [
      'a revoked link',
      async () => {
        const link = (await create({ embed_origins: ['https://intranet.example'] })).body;
        expect((await server.request('DELETE', `/v1/sites/blog/share-links/${link.id}`)).status).toBe(200);
        return link.id;
      },
    ],
  ])('keeps frame-ancestors \'none\' for %s', async (_name, idOf) => {
    const embedded = await page(`?site=blog&embed=${encodeURIComponent(await idOf())}`);
    expect(frameAncestors(embedded.csp)).toBe("frame-ancestors 'none'");
    expect(embedded.frameOptions).toBe('DENY');
  });
});

describe('share-info', () => {
  it('gives the site\'s name to its own link; another site is a 404, no or a wrong token a 401', async () => {
    const link = (await create({})).body;
    const share = { token: null, headers: { authorization: `Share ${link.token}` } };
    const info = await server.request('GET', '/v1/sites/blog/share-info', share);
    expect(info.status, info.text).toBe(200);
    expect(info.body).toEqual({ site_id: 'blog', site_name: expect.any(String) });
    expect(info.body.site_name).toBe(server.db.prepare("SELECT name FROM sites WHERE id = 'blog'").pluck().get());
    expect((await server.request('GET', '/v1/sites/shop/share-info', share)).status).toBe(404);
    expect((await server.request('GET', '/v1/sites/blog/share-info', { token: null })).status).toBe(401);
    expect((await server.request('GET', '/v1/sites/blog/share-info', { token: null, headers: { authorization: `Share shr_${'A'.repeat(43)}` } })).status).toBe(401);
  });
});
