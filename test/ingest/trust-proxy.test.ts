// TRUST_PROXY over real HTTP: the client address is the one the trusted proxy saw (the Nth X-Forwarded-For entry
// from the right), so what a client writes further left neither rotates the per-IP rate limit nor claims INTERNAL_IPS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

// Addresses whose country the bundled geo database knows, so a stored row says which entry was taken. The test
// client connects from 127.0.0.1: no country, and INTERNAL_IPS lists it so that the socket's address shows too.
const gb = '81.2.69.142';
const us = '8.8.8.8';
const au = '1.1.1.1';
const jp = '133.11.0.1';

interface ClientFacts {
  country: string | null;
  is_internal: number;
}
const socket: ClientFacts = { country: null, is_internal: 1 };
const from = (country: string): ClientFacts => ({ country, is_internal: 0 });

/** Posts one event with this X-Forwarded-For (or none) and reads back what was derived from the client address. */
async function clientFactsOf(server: TestServer, forwardedFor: string | undefined): Promise<ClientFacts> {
  const event = makeEvent('proxied');
  const headers: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  const response = await server.request('POST', '/events', { token: 'proxied', body: event, headers });
  expect(response.status).toBe(202);
  return server.db.prepare('SELECT country, is_internal FROM events WHERE id = ?').get(event.id) as ClientFacts;
}

/** Per TRUST_PROXY value: an X-Forwarded-For header (undefined: none) and what the stored event says about the address taken. */
const scenarios: Record<string, [forwardedFor: string | undefined, expected: ClientFacts][]> = {
  false: [
    [`${gb}`, socket],
    [`${gb}, ${us}`, socket],
  ],
  true: [
    [undefined, socket],
    [`${gb}`, from('GB')],
    // A client that writes its own header: the proxy appends the address it saw, and that one is taken.
    [`${gb}, ${us}`, from('US')],
    [`127.0.0.1, ${au}`, from('AU')],
    [`${gb},${us} , ${au}`, from('AU')],
    // Ports and brackets as some proxies write them.
    [`${gb}, ${jp}:4711`, from('JP')],
    [`${gb}, [2001:4860:4860::8888]:443`, from('US')],
    [`${gb}, ::ffff:${au}`, from('AU')],
    // Malformed where the proxy's entry should be: the socket's address (the proxy), never an entry further left.
    [`${gb}, unknown`, socket],
    [`${gb}, `, socket],
    [`${gb}, ${us}:http`, socket],
    ['', socket],
  ],
  1: [
    [`${gb}, ${us}`, from('US')],
  ],
  2: [
    [`${gb}, ${us}, ${au}`, from('US')],
    [`${jp}, ${gb}, ${us}, ${au}`, from('US')],
    [`${us}, ${au}`, from('US')],
    // Fewer entries than proxies: each was appended by one of them, the leftmost is what the outer one saw.
    [`${au}`, from('AU')],
    [`${gb}, not-an-ip, ${au}`, socket],
  ],
};

describe.each(Object.keys(scenarios))('TRUST_PROXY=%s', (trustProxy) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: trustProxy, INTERNAL_IPS: '127.0.0.1' } });
    await seedWorkspace(server, 'proxy', { sites: ['proxied'] });
  });
  afterAll(() => server.close());

  it.each(scenarios[trustProxy]!)('X-Forwarded-For %j → %j', async (forwardedFor, expected) => {
    expect(await clientFactsOf(server, forwardedFor)).toEqual(expected);
  });
});

describe('TRUST_PROXY=true against a client that writes X-Forwarded-For', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A clock that stands still: the per-IP buckets never refill, so the counts below do not depend on timing.
    const frozen = Date.now();
    server = await startTestServer({ clock: { now: () => frozen }, env: { TRUST_PROXY: 'true', RATE_LIMIT_IP: '1', INTERNAL_IPS: '10.0.0.0/8' } });
    await seedWorkspace(server, 'spoof', { sites: ['spoofed'] });
  });
  afterAll(() => server.close());

  it('a rotated leftmost entry does not bypass RATE_LIMIT_IP (burst 10 per proxy-seen address)', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 30; index++) {
      const headers = { 'x-forwarded-for': `198.51.100.${index}, 203.0.113.7` };
      statuses.push((await server.request('POST', '/events', { token: 'spoofed', body: makeEvent('spoofed'), headers })).status);
    }
    expect(statuses.filter((status) => status === 202)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual(Array.from({ length: 20 }, () => 429));
    // Another client behind the same proxy has its own bucket.
    const other = await server.request('POST', '/events', { token: 'spoofed', body: makeEvent('spoofed'), headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.8' } });
    expect(other.status).toBe(202);
  });

  it('an INTERNAL_IPS address in the leftmost entry does not hide the event from reports', async () => {
    const claimed = makeEvent('spoofed');
    const response = await server.request('POST', '/events', { token: 'spoofed', body: claimed, headers: { 'x-forwarded-for': `10.1.2.3, ${gb}` } });
    expect(response.status).toBe(202);
    expect(server.db.prepare('SELECT country, is_internal FROM events WHERE id = ?').get(claimed.id)).toEqual({ country: 'GB', is_internal: 0 });
    // The office's own traffic, as the proxy saw it, is still internal.
    const office = makeEvent('spoofed');
    await server.request('POST', '/events', { token: 'spoofed', body: office, headers: { 'x-forwarded-for': `${gb}, 10.1.2.3` } });
    expect(server.db.prepare('SELECT is_internal FROM events WHERE id = ?').get(office.id)).toEqual({ is_internal: 1 });
  });
});

describe('TRUST_PROXY values', () => {
  it.each([
    ['false', 0], ['no', 0], ['0', 0], ['true', 1], ['yes', 1], ['1', 1], ['2', 2], ['10', 10],
  ] as const)('%s means %i proxies', (text, proxies) => {
    expect(loadConfig({ TRUST_PROXY: text }).trustProxy).toBe(proxies);
  });

  it.each(['-1', 'maybe', '1.5', '100', 'TRUE'])('%s is refused at start', (text) => {
    expect(() => loadConfig({ TRUST_PROXY: text })).toThrow(/TRUST_PROXY: must be true, false or the number of proxies/);
  });
});
