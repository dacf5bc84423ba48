// The writer skips reading a new row back when the collector says raw reads as the canonical values
// (rawReadsCanonical). Property: whenever it says so, the row stored through the checking path needs no override.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openEventLog } from '../../src/db/open.ts';
import { insertEvent } from '../../src/event-store/queries/event-rows.ts';
import { rawReadsCanonical } from '../../src/event-store/stored-event.ts';
import { enrichEvent } from '../../src/ingest/enrich.ts';
import { openBlogDatabase } from '../storage-fixtures.ts';

const chrome = { browser: 'Chrome', os: 'Windows', device_type: 'desktop', is_bot: false };
const urlPieces = ['https://a.example/p', '?', '#', 'x=1', '&', ' ', '\t', 'é', '%20', '?q', '#f', '"', '\\', '\u0001', 'id', '"url"'];
const keyPieces = ['"id"', '"anon_id"', '"url"', '"x"', '"\\u0069d"', '"props"'];

/** A raw text as a client may send it: the required members, maybe repeated or escaped, and extra members. */
const rawArbitrary = fc
  .record({
    id: fc.uuid(),
    upper: fc.boolean(),
    anon: fc.string({ maxLength: 12 }),
    url: fc.option(fc.array(fc.constantFrom(...urlPieces), { maxLength: 6 }).map((parts) => `https://a.example/${parts.join('')}`), { nil: undefined }),
    extras: fc.array(fc.tuple(fc.constantFrom(...keyPieces), fc.constantFrom('"v"', '1', '{"id":"n"}', '"https://b.example/?z=1"', 'null')), { maxLength: 3 }),
    escapeId: fc.boolean(),
  })
  .map(({ id, upper, anon, url, extras, escapeId }) => {
    const members = [
      `${escapeId ? '"\\u0069d"' : '"id"'}:${JSON.stringify(upper ? id.toUpperCase() : id)}`,
      '"site_id":"blog"',
      `"anon_id":${JSON.stringify(anon)}`,
      '"ts":"2026-11-02T10:00:00Z"',
      '"type":"pageview"',
      ...(url === undefined ? [] : [`"url":${JSON.stringify(url)}`]),
      ...extras.map(([key, value]) => `${key}:${value}`),
    ];
    return `{${members.join(',')}}`;
  });

describe('rawReadsCanonical', () => {
  it('says true only where reading raw in SQL gives the canonical id, anon_id and query', () => {
    const db = openBlogDatabase();
    const log = openEventLog(db.name);
    let plain = 0;
    fc.assert(
      fc.property(rawArbitrary, (raw) => {
        const wire = JSON.parse(raw) as { id: unknown; anon_id: unknown; url?: unknown };
        if (typeof wire.id !== 'string' || typeof wire.anon_id !== 'string') return;
        if (wire.url !== undefined && (typeof wire.url !== 'string' || !URL.canParse(wire.url))) return;
        const stored = enrichEvent({
          siteId: 'blog',
          event: wire as never,
          canonicalId: wire.id.toLowerCase(),
          tsMs: 0,
          revenueMinor: null,
          raw,
          visitor: { agent: chrome as never, geo: { country: null, region: null, city: null }, internal: false },
        });
        if (!stored.raw_reads_canonical) return;
        plain++;
        // The checking path: it reads the row back and stores an override wherever SQL reads otherwise.
        const seq = insertEvent(log, { ...stored, raw_reads_canonical: false }, 0);
        const row = log.prepare('SELECT id_override, anon_id_override, query_override FROM events WHERE seq = ?').get(seq);
        expect(row, raw).toEqual({ id_override: null, anon_id_override: null, query_override: null });
      }),
      { numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(100);
    log.close();
    db.close();
  });

  it('refuses what it cannot be sure of', () => {
    const base = '{"id":"a","anon_id":"v","url":"https://a.example/?x=1"}';
    expect(rawReadsCanonical(base, 'https://a.example/?x=1', { query: 'x=1' })).toBe(true);
    expect(rawReadsCanonical(base.replace('"id"', '"\\u0069d"'), 'https://a.example/?x=1', { query: 'x=1' })).toBe(false);
    expect(rawReadsCanonical(base.replace('}', ',"id":"b"}'), 'https://a.example/?x=1', { query: 'x=1' })).toBe(false);
    expect(rawReadsCanonical(base, 'https://a.example/?x=1', { query: 'x=2' })).toBe(false);
    expect(rawReadsCanonical(base.replace('}', `,"x":${'['.repeat(1000)}${']'.repeat(1000)}}`), 'https://a.example/?x=1', { query: 'x=1' })).toBe(false);
    expect(rawReadsCanonical(base.replace('}', `,"x":${'['.repeat(998)}${']'.repeat(998)}}`), 'https://a.example/?x=1', { query: 'x=1' })).toBe(true);
  });
});
