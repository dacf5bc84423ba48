// Workspaces over HTTP: create (exact shape, slug and name rules at both edges, 409 slug_taken), read, rename, list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';
import { expectFlatError, flatError, manualClock, padTo, prefixes, runScenario, type Scenario, uuidPattern } from './_helpers.ts';

const createdAt = '2026-03-01T12:00:00.000Z';

/** POST /workspaces answers exactly these four fields. */
function createdWorkspace(name: string, slug: string) {
  return (response: { body: Record<string, unknown> }) => {
    expect(Object.keys(response.body).sort()).toEqual(['created_at', 'id', 'name', 'slug']);
    expect(response.body).toEqual({ id: expect.stringMatching(uuidPattern), name, slug, created_at: createdAt });
  };
}

const slug64 = 'a' + padTo(62, 'b') + '9';
const slug65 = 'a' + padTo(63, 'b') + '9';
const name128 = padTo(128, 'n');
const name129 = padTo(129, 'n');

const createScenarios: Scenario[] = [
  { name: 'creates a workspace', method: 'POST', url: '/workspaces', body: { name: 'Acme', slug: 'acme' }, status: 201, expect: createdWorkspace('Acme', 'acme') },
  { name: 'a one-letter slug is enough', method: 'POST', url: '/workspaces', body: { name: 'A', slug: 'a' }, status: 201, expect: createdWorkspace('A', 'a') },
  { name: 'digits and hyphens after the first letter', method: 'POST', url: '/workspaces', body: { name: 'Mixed', slug: 'm1-x-' }, status: 201, expect: createdWorkspace('Mixed', 'm1-x-') },
  { name: 'a 64-character slug is accepted', method: 'POST', url: '/workspaces', body: { name: 'Long slug', slug: slug64 }, status: 201, expect: createdWorkspace('Long slug', slug64) },
  { name: 'a 65-character slug is refused', method: 'POST', url: '/workspaces', body: { name: 'Too long', slug: slug65 }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'a slug starting with a digit is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: '1acme' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'a slug starting with a hyphen is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: '-acme' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'an upper-case slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: 'Acme2' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'an upper-case letter inside the slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: 'acMe' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'an underscore in the slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: 'ac_me' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'a dot in the slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: 'ac.me' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'a non-ASCII letter in the slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: 'café' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'surrounding spaces in the slug are refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: ' acme2 ' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'an empty slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: '' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'a missing slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  { name: 'a numeric slug is refused', method: 'POST', url: '/workspaces', body: { name: 'x', slug: 12 }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
  {
    name: 'a 128-character name with surrounding spaces is accepted and stored trimmed',
    method: 'POST',
    url: '/workspaces',
    body: { name: `  \t${name128} \n`, slug: 'name-max' },
    status: 201,
    expect: createdWorkspace(name128, 'name-max'),
  },
  { name: 'a 129-character name is refused', method: 'POST', url: '/workspaces', body: { name: name129, slug: 'name-over' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  {
    name: 'a 128-character name counts characters, not UTF-16 units',
    method: 'POST',
    url: '/workspaces',
    body: { name: padTo(128, '😀'), slug: 'emoji-max' },
    status: 201,
    expect: createdWorkspace(padTo(128, '😀'), 'emoji-max'),
  },
  { name: 'a 129-emoji name is refused', method: 'POST', url: '/workspaces', body: { name: padTo(129, '😀'), slug: 'emoji-over' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a whitespace-only name is refused', method: 'POST', url: '/workspaces', body: { name: ' \t\n  ', slug: 'blank' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'an empty name is refused', method: 'POST', url: '/workspaces', body: { name: '', slug: 'blank' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a missing name is refused', method: 'POST', url: '/workspaces', body: { slug: 'blank' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a numeric name is refused', method: 'POST', url: '/workspaces', body: { name: 7, slug: 'blank' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  // Invisible names (issue 13): control and format characters are refused, as trimming refuses spaces; the joiners
  // and tag characters that scripts and emoji need between visible characters are not.
  { name: 'a name of only U+200B (zero width space) is refused', method: 'POST', url: '/workspaces', body: { name: '\u200b', slug: 'zwsp' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a name of only U+202E (right-to-left override) is refused', method: 'POST', url: '/workspaces', body: { name: '\u202e', slug: 'rlo' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a name of only U+0000 is refused', method: 'POST', url: '/workspaces', body: { name: '\u0000', slug: 'nul' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a right-to-left override inside a name is refused', method: 'POST', url: '/workspaces', body: { name: 'invoice\u202efdp.exe', slug: 'rlo' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a NUL at the end of a name is refused (trimming keeps it)', method: 'POST', url: '/workspaces', body: { name: 'Acme\u0000', slug: 'nul' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a tab inside a name is refused', method: 'POST', url: '/workspaces', body: { name: 'Ac\tme', slug: 'tab' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a line separator inside a name is refused', method: 'POST', url: '/workspaces', body: { name: 'Ac\u2028me', slug: 'ls' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a byte order mark inside a name is refused', method: 'POST', url: '/workspaces', body: { name: 'Ac\ufeffme', slug: 'bom' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a name of only joiners is refused', method: 'POST', url: '/workspaces', body: { name: '\u200d\u200c', slug: 'joiners' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a lone surrogate in a name is refused', method: 'POST', url: '/workspaces', body: { name: 'Acme\ud800', slug: 'lone' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a Persian name keeps its zero width non-joiner', method: 'POST', url: '/workspaces', body: { name: 'می\u200cخواهم', slug: 'persian' }, status: 201, expect: createdWorkspace('می\u200cخواهم', 'persian') },
  { name: 'an emoji family (zero width joiners) is a name', method: 'POST', url: '/workspaces', body: { name: '👨\u200d👩\u200d👧', slug: 'family' }, status: 201, expect: createdWorkspace('👨\u200d👩\u200d👧', 'family') },
  { name: 'a subdivision flag (tag characters) is a name', method: 'POST', url: '/workspaces', body: { name: '🏴󠁧󠁢󠁳󠁣󠁴󠁿', slug: 'scotland' }, status: 201, expect: createdWorkspace('🏴󠁧󠁢󠁳󠁣󠁴󠁿', 'scotland') },
  { name: 'a JSON array body is refused', method: 'POST', url: '/workspaces', body: [{ name: 'x', slug: 'blank' }], status: 400, expect: flatError('invalid_payload', []) },
  { name: 'a JSON null body is refused', method: 'POST', url: '/workspaces', body: null, status: 400, expect: flatError('invalid_payload', []) },
  { name: 'a taken slug is 409 slug_taken', method: 'POST', url: '/workspaces', body: { name: 'Acme again', slug: 'acme' }, status: 409, expect: flatError('slug_taken') },
  { name: 'the slug is taken whatever the name', method: 'POST', url: '/workspaces', body: { name: 'Acme', slug: 'acme' }, status: 409, expect: flatError('slug_taken') },
  {
    name: 'an id in the body is ignored: ids are server-assigned',
    method: 'POST',
    url: '/workspaces',
    body: { name: 'Forced', slug: 'forced', id: '00000000-0000-4000-8000-000000000000' },
    status: 201,
    expect: (response: { body: Record<string, unknown> }) => {
      createdWorkspace('Forced', 'forced')(response);
      expect(response.body.id).not.toBe('00000000-0000-4000-8000-000000000000');
    },
  },
];

describe.each(prefixes)('workspaces under "%s"', (prefix) => {
  const clock = manualClock(createdAt);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(() => server.close());

  describe('POST /workspaces', () => {
    it.each(createScenarios)('$name', async (scenario) => {
      const before = await settledTableCounts(server);
      const response = await runScenario(server, prefix, {}, scenario);
      const after = await settledTableCounts(server);
      if (response.status === 201) {
        // One workspace row and its one audit row, nothing else.
        expect(after).toEqual({ ...before, workspaces: before.workspaces! + 1, audit_log: before.audit_log! + 1 });
        const row = server.db.prepare('SELECT id, slug, name, created_at FROM workspaces WHERE id = ?').get(response.body.id);
        expect(row).toEqual(response.body);
      } else {
        expect(after).toEqual(before);
      }
    });

    it('a 400 answers the flat envelope with JSON Pointer details and nothing else', async () => {
      const response = await server.request('POST', `${prefix}/workspaces`, { body: { name: '', slug: 'Bad' } });
      expectFlatError(response, 400, 'invalid_payload', ['/name', '/slug']);
      expect(Object.keys(response.body).sort()).toEqual(['details', 'error', 'message']);
    });
  });

  describe('GET /workspaces/:slug', () => {
    it('reads a workspace', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/acme`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: expect.stringMatching(uuidPattern), name: 'Acme', slug: 'acme', created_at: createdAt });
    });

    it('reads the trimmed name that was stored', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/name-max`);
      expect(response.status).toBe(200);
      expect(response.body.name).toBe(name128);
    });

    it('a missing workspace is 404 not_found', async () => {
      expectFlatError(await server.request('GET', `${prefix}/workspaces/nope`), 404, 'not_found');
      // A slug that could never exist is just as missing.
      expectFlatError(await server.request('GET', `${prefix}/workspaces/NOPE_`), 404, 'not_found');
    });
  });

  describe('PATCH /workspaces/:slug', () => {
    const renameScenarios: Scenario[] = [
      { name: 'a slug in the body is refused, even the same slug', method: 'PATCH', url: '/workspaces/acme', body: { name: 'Renamed', slug: 'acme' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
      { name: 'a new slug is refused', method: 'PATCH', url: '/workspaces/acme', body: { name: 'Renamed', slug: 'acme-2' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
      { name: 'a slug alone is refused', method: 'PATCH', url: '/workspaces/acme', body: { slug: 'acme-2' }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
      { name: 'a null slug is refused', method: 'PATCH', url: '/workspaces/acme', body: { name: 'Renamed', slug: null }, status: 400, expect: flatError('invalid_payload', ['/slug']) },
      { name: 'an empty body is refused', method: 'PATCH', url: '/workspaces/acme', body: {}, status: 400, expect: flatError('invalid_payload', ['/name']) },
      { name: 'a whitespace-only name is refused', method: 'PATCH', url: '/workspaces/acme', body: { name: '   ' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
      { name: 'a 129-character name is refused', method: 'PATCH', url: '/workspaces/acme', body: { name: name129 }, status: 400, expect: flatError('invalid_payload', ['/name']) },
      { name: 'a name of only U+200B is refused', method: 'PATCH', url: '/workspaces/acme', body: { name: ' \u200b ' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
      { name: 'a lone surrogate in the name is refused', method: 'PATCH', url: '/workspaces/acme', body: { name: '\udc00' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
      { name: 'a missing workspace is 404', method: 'PATCH', url: '/workspaces/nope', body: { name: 'Renamed' }, status: 404, expect: flatError('not_found') },
    ];

    it.each(renameScenarios)('$name (nothing written)', async (scenario) => {
      const before = await settledTableCounts(server);
      await runScenario(server, prefix, {}, scenario);
      expect(await settledTableCounts(server)).toEqual(before);
      expect((await server.request('GET', `${prefix}/workspaces/acme`)).body).toMatchObject({ name: 'Acme', slug: 'acme' });
    });

    it('renames (trimmed) and keeps the slug and id', async () => {
      const original = (await server.request('GET', `${prefix}/workspaces/acme`)).body;
      clock.advance(1000);
      const response = await server.request('PATCH', `${prefix}/workspaces/acme`, { body: { name: `  ${name128}  ` } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: original.id, name: name128, slug: 'acme', created_at: createdAt });
      const read = await server.request('GET', `${prefix}/workspaces/acme`);
      expect(read.body).toMatchObject({ id: original.id, name: name128, slug: 'acme' });
      // Renaming back leaves the workspace as the create scenarios expect it.
      const back = await server.request('PATCH', `${prefix}/workspaces/acme`, { body: { name: 'Acme' } });
      expect(back.status).toBe(200);
      expect(back.body.name).toBe('Acme');
    });
  });

  describe('GET /workspaces', () => {
    it('lists every workspace with the list shape', async () => {
      const response = await server.request('GET', `${prefix}/workspaces`);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['next_cursor', 'workspaces']);
      expect(response.body.next_cursor).toBeNull();
      const slugs = (response.body.workspaces as { slug: string }[]).map((workspace) => workspace.slug).sort();
      expect(slugs).toEqual(['a', 'acme', 'emoji-max', 'family', 'forced', 'm1-x-', 'name-max', 'persian', 'scotland', slug64].sort());
      for (const workspace of response.body.workspaces) {
        expect(workspace).toMatchObject({ id: expect.stringMatching(uuidPattern), name: expect.any(String), slug: expect.any(String), created_at: createdAt });
      }
    });
  });
});

describe.each(prefixes)('request bodies of every administration write under "%s"', (prefix) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock(createdAt) });
    await seedWorkspace(server, 'acme');
  });
  afterAll(() => server.close());

  const writes = [
    { method: 'POST', url: '/workspaces' },
    { method: 'PATCH', url: '/workspaces/acme' },
    { method: 'POST', url: '/workspaces/acme/sites' },
    { method: 'POST', url: '/workspaces/acme/keys' },
  ];
  const withBytes = (before: string, bytes: number[], after: string) => new Uint8Array(Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]));
  const bodies: { name: string; rawBody: string | Uint8Array; contentType: string; encoding?: string; status: number; code: string; paths?: string[] }[] = [
    { name: 'malformed JSON', rawBody: '{"name":', contentType: 'application/json', status: 400, code: 'invalid_json' },
    { name: 'an empty body', rawBody: '', contentType: 'application/json', status: 400, code: 'invalid_json' },
    { name: 'a form body', rawBody: 'name=x&slug=y', contentType: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type' },
    { name: 'JSON sent as text/plain', rawBody: '{"name":"x","slug":"y"}', contentType: 'text/plain', status: 415, code: 'unsupported_media_type' },
    // Nothing is decoded but UTF-8: no replacement character ever ends up in a stored name.
    { name: 'bytes that are not UTF-8', rawBody: withBytes('{"name":"Ac', [0xff], 'me","label":"x","id":"x","slug":"x","scopes":["admin"]}'), contentType: 'application/json', status: 400, code: 'invalid_json' },
    { name: 'a Latin-1 charset', rawBody: '{"name":"x"}', contentType: 'application/json; charset=iso-8859-1', status: 415, code: 'unsupported_media_type' },
    { name: 'a UTF-16 charset', rawBody: '{"name":"x"}', contentType: 'application/json; charset=utf-16', status: 415, code: 'unsupported_media_type' },
    { name: 'Content-Encoding: gzip', rawBody: '{"name":"x"}', contentType: 'application/json', encoding: 'gzip', status: 415, code: 'unsupported_media_type' },
    { name: 'a lone surrogate in any field', rawBody: '{"note":{"list":["ok","\\ud800"]}}', contentType: 'application/json', status: 400, code: 'invalid_payload', paths: ['/note/list/1'] },
  ];
  const cases = writes.flatMap((write) => bodies.map((body) => ({ name: `${write.method} ${write.url} with ${body.name}`, write, body })));

  it.each(cases)('$name is refused in the flat envelope, nothing written', async ({ write, body }) => {
    const before = await settledTableCounts(server);
    const headers: Record<string, string> = { 'content-type': body.contentType };
    if (body.encoding) headers['content-encoding'] = body.encoding;
    const response = await server.request(write.method, prefix + write.url, { rawBody: body.rawBody, headers });
    expectFlatError(response, body.status, body.code, body.paths);
    if (body.paths) expect(response.body.details).toHaveLength(body.paths.length);
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('a JSON media type with a charset parameter is accepted', async () => {
    const response = await server.request('POST', `${prefix}/workspaces`, {
      rawBody: JSON.stringify({ name: 'Charset', slug: 'charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });
});
