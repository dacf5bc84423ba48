// What an ingest body's text may be, on both adapters (the Node fast path and the h3 route through app.fetch):
// well-formed Unicode only (a lone surrogate's escape is refused with a pointer), UTF-8 bytes only (invalid bytes
// are invalid_json, another charset or any content coding is 415), and a stored raw is the bytes sent.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';

const siteId = 'encoded';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'encodings', { sites: [siteId] });
});
afterAll(() => server.close());

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

type Adapter = 'fast path' | 'h3 route';
const adapters: Adapter[] = ['fast path', 'h3 route'];

/** Sends bytes as they are, over real HTTP (the fast path) or through app.fetch (the h3 route). */
async function send(adapter: Adapter, bytes: Uint8Array | string, headers: Record<string, string> = {}, path = '/events'): Promise<Answer> {
  const allHeaders = { authorization: `Bearer ${siteId}`, 'content-type': 'application/json', ...headers };
  if (adapter === 'fast path') return server.request('POST', path, { token: null, rawBody: bytes, headers: allHeaders });
  const response = await server.app.fetch(new Request(`http://sightline.test${path}`, { method: 'POST', body: bytes as BodyInit, headers: allHeaders }));
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** A valid event's JSON text with `fieldsText` (JSON members as written, escapes included) in place of its own. */
function eventText(fieldsText: string): string {
  const event = makeEvent(siteId);
  for (const key of Object.keys(JSON.parse(`{${fieldsText}}`))) delete event[key];
  return `{${fieldsText},${JSON.stringify(event).slice(1)}`;
}

function rawOf(id: string): string | undefined {
  return (server.db.prepare('SELECT raw FROM events WHERE id = ?').get(id) as { raw: string } | undefined)?.raw;
}

const surrogateMessage = 'must be well-formed Unicode (no lone surrogate)';
const keyMessage = 'has a member name that is not well-formed Unicode (a lone surrogate)';

describe.each(adapters)('lone surrogates on the %s', (adapter) => {
  // Bodies as the client's JSON says them: each escape below parses to a lone surrogate.
  const refused: { name: string; text: () => string; details: { path: string; message: string }[] }[] = [
    { name: 'a high surrogate in anon_id', text: () => eventText('"anon_id":"\\ud800x"'), details: [{ path: '/anon_id', message: surrogateMessage }] },
    { name: 'a low surrogate (upper-case escape) in user_id', text: () => eventText('"user_id":"x\\uDFFF"'), details: [{ path: '/user_id', message: surrogateMessage }] },
    { name: 'a pair in the wrong order', text: () => eventText('"anon_id":"\\ude00\\ud83d"'), details: [{ path: '/anon_id', message: surrogateMessage }] },
    { name: 'a surrogate deep in props', text: () => eventText('"props":{"a":{"b":["ok","\\udbff"]}}'), details: [{ path: '/props/a/b/1', message: surrogateMessage }] },
    { name: 'a surrogate in a props key', text: () => eventText('"props":{"\\ud83d":1}'), details: [{ path: '/props', message: keyMessage }] },
    { name: 'a surrogate in a key with / and ~', text: () => eventText('"props":{"a/b~c":"\\udc00"}'), details: [{ path: '/props/a~1b~0c', message: surrogateMessage }] },
    { name: 'a surrogate in context.title', text: () => eventText('"context":{"title":"\\ud800"}'), details: [{ path: '/context/title', message: surrogateMessage }] },
    { name: 'a surrogate in an unknown field', text: () => eventText('"future_field":["\\udfff"]'), details: [{ path: '/future_field/0', message: surrogateMessage }] },
    {
      name: 'a surrogate in the second event of an array',
      text: () => `[${JSON.stringify(makeEvent(siteId))},${eventText('"anon_id":"\\ud800"')}]`,
      details: [{ path: '/1/anon_id', message: surrogateMessage }],
    },
  ];

  it.each(refused)('$name is 400 invalid_payload with a pointer, nothing stored', async ({ text, details }) => {
    const before = await settledTableCounts(server);
    const response = await send(adapter, text());
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details).toEqual(details);
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('a visitor who sent a lone surrogate is still served: its next events are accepted (they used to answer 500)', async () => {
    const first = await send(adapter, eventText('"anon_id":"\\ud800x"'));
    expect(first.status).toBe(400);
    for (let index = 0; index < 3; index++) {
      const next = await send(adapter, JSON.stringify(makeEvent(siteId, { anon_id: '\ufffdx' })));
      expect(next.status).toBe(202);
    }
  });

  it('accepts what is well-formed: an escaped pair, an escaped backslash before u, and U+FFFD itself; raw is the text sent', async () => {
    const pair = eventText('"anon_id":"\\ud83d\\ude00"');
    const backslash = eventText('"anon_id":"\\\\ud800"');
    const replacement = eventText('"anon_id":"\ufffd"');
    for (const text of [pair, backslash, replacement]) {
      const response = await send(adapter, text);
      expect(response.status, text).toBe(202);
      expect(rawOf(JSON.parse(text).id)).toBe(text);
    }
    expect(server.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(JSON.parse(pair).id)).toEqual({ anon_id: '😀' });
    expect(server.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(JSON.parse(backslash).id)).toEqual({ anon_id: '\\ud800' });
  });
});

describe.each(adapters)('bytes that are not UTF-8 on the %s', (adapter) => {
  const around = (bytes: number[]) => {
    const text = eventText('"anon_id":"@"');
    const at = text.indexOf('@');
    return new Uint8Array(Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at + 1))]));
  };
  const invalid: { name: string; bytes: () => Uint8Array }[] = [
    { name: 'a stray 0xFF', bytes: () => around([0xff]) },
    { name: 'an overlong slash (C0 AF)', bytes: () => around([0xc0, 0xaf]) },
    { name: 'a surrogate encoded in UTF-8 (ED A0 80, CESU-8)', bytes: () => around([0xed, 0xa0, 0x80]) },
    { name: 'a code point past U+10FFFF (F4 90 80 80)', bytes: () => around([0xf4, 0x90, 0x80, 0x80]) },
    { name: 'a lone continuation byte', bytes: () => around([0x80]) },
    { name: 'é in Latin-1', bytes: () => around([0x63, 0x61, 0x66, 0xe9]) },
    { name: 'a sequence cut at the end of the body', bytes: () => new Uint8Array([...Buffer.from(JSON.stringify(makeEvent(siteId))), 0xf0, 0x9f, 0x98]) },
    { name: 'a UTF-16 body', bytes: () => new Uint8Array(Buffer.from(`\ufeff${JSON.stringify(makeEvent(siteId))}`, 'utf16le')) },
  ];

  it.each(invalid)('$name is 400 invalid_json, nothing stored', async ({ bytes }) => {
    const before = await settledTableCounts(server);
    const response = await send(adapter, bytes());
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'invalid_json', message: 'The request body is not valid UTF-8' });
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('a UTF-8 byte order mark is kept, like every byte, so the body is not JSON', async () => {
    const response = await send(adapter, `\ufeff${JSON.stringify(makeEvent(siteId))}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'invalid_json', message: 'The request body is not valid JSON' });
  });

  it('stores the bytes of every script exactly: raw is the UTF-8 sent for each event of an array', async () => {
    const texts = ['"anon_id":"é ß 中文 عربى"', '"anon_id":"😀👨‍👩‍👧","props":{"ü":"\u202e\u200b"}', '"anon_id":"\ufffd\uffff"'].map((fields) => eventText(fields));
    const body = Buffer.from(`[${texts.join(' ,\n')}]`, 'utf8');
    const response = await send(adapter, new Uint8Array(body));
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(3);
    for (const text of texts) {
      const raw = rawOf(JSON.parse(text).id)!;
      expect(Buffer.from(raw, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
      expect(body.includes(Buffer.from(raw, 'utf8'))).toBe(true);
    }
  });
});

describe.each(adapters)('charsets and content codings on the %s', (adapter) => {
  const refused: { name: string; headers: Record<string, string>; body?: () => Uint8Array }[] = [
    { name: 'charset=utf-16', headers: { 'content-type': 'application/json; charset=utf-16' } },
    { name: 'charset=ISO-8859-1 on text/plain', headers: { 'content-type': 'text/plain; charset=ISO-8859-1' } },
    { name: 'an empty charset', headers: { 'content-type': 'application/json; charset=' } },
    { name: 'a charset after another parameter', headers: { 'content-type': 'text/plain; format=flowed; charset="windows-1252"' } },
    { name: 'Content-Encoding: gzip with a gzip body', headers: { 'content-encoding': 'gzip' }, body: () => new Uint8Array(gzipSync(JSON.stringify(makeEvent(siteId)))) },
    { name: 'Content-Encoding: gzip on a plain body', headers: { 'content-encoding': 'gzip' } },
    { name: 'Content-Encoding: br', headers: { 'content-encoding': 'br' } },
    { name: 'identity then deflate', headers: { 'content-encoding': 'identity, deflate' } },
  ];

  it.each(refused)('$name is 415 unsupported_media_type, nothing stored', async ({ headers, body }) => {
    const before = await settledTableCounts(server);
    const response = await send(adapter, body?.() ?? JSON.stringify(makeEvent(siteId)), headers);
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('unsupported_media_type');
    if (headers['content-encoding']) expect(response.headers.get('accept-encoding')).toBe('identity');
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it.each<Record<string, string>>([
    { 'content-type': 'application/json; charset=utf-8' },
    { 'content-type': 'application/json; CHARSET="UTF-8"' },
    { 'content-type': 'text/plain;charset=utf8' },
    { 'content-type': 'text/plain; format=flowed' },
    { 'content-encoding': 'identity' },
    { 'content-encoding': 'IDENTITY' },
  ])('accepts %o', async (headers) => {
    const event = makeEvent(siteId);
    const response = await send(adapter, JSON.stringify(event), headers);
    expect(response.status).toBe(202);
    expect(rawOf(event.id as string)).toBe(JSON.stringify(event));
  });

  it('credentials are checked first: a wrong bearer with a gzip body is 401', async () => {
    const response = await send(adapter, JSON.stringify(makeEvent(siteId)), { authorization: 'Bearer nope', 'content-encoding': 'gzip' });
    expect(response.status).toBe(401);
  });
});
