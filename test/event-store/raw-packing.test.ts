// events.raw is stored packed (src/db/raw-codec.ts, schema.sql version 30) and must read back byte for byte: over
// the shapes the collector stores (the tracker's, the API's, the importers'), every naughty string, texts where the
// ts the codec cuts out is absent, elsewhere, repeated or differently written, values too large for the fast path,
// and thousands of random texts. Then through SQL: what a real database stores and what its virtual columns read.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { isoText, packRaw, unpackRaw } from '../../src/db/raw-codec.ts';
import { naughtyStrings, overlongStrings } from '../_naughty-strings.ts';
import { makeTempDir } from '../_setup.ts';

const ts = Date.UTC(2026, 10, 27, 12, 44, 5, 123);
const iso = new Date(ts).toISOString();
const trackerEvent = (site: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: randomUUID(),
    site_id: site,
    ts: iso,
    type: 'pageview',
    url: 'https://blog.example/posts/hello?utm_source=news',
    referrer: 'https://www.google.com/',
    context: { locale: 'en-US', title: 'Hello', screen: { w: 1920, h: 1080 } },
    anon_id: 'visitor-1',
    ...extra,
  });

/** The stored format byte: 0 the text itself, 1 deflated, 2 deflated with the ts cut out. */
const scenarios: { name: string; site: string; ts: number; raw: string; format: number }[] = [
  { name: 'the tracker pageview', site: 'blog', ts, raw: trackerEvent('blog'), format: 2 },
  { name: 'a site id with quotes and non-ASCII', site: 'blög "x"', ts, raw: trackerEvent('blög "x"'), format: 2 },
  { name: 'ts without milliseconds', site: 'blog', ts, raw: trackerEvent('blog', { ts: '2026-11-27T12:44:05Z' }), format: 1 },
  { name: 'ts as a number', site: 'blog', ts, raw: trackerEvent('blog', { ts }), format: 1 },
  { name: 'ts of another row', site: 'blog', ts: ts + 1, raw: trackerEvent('blog'), format: 1 },
  { name: 'a "ts" key in props before the event ts', site: 'blog', ts, raw: `{"props":{"ts":"x"},"ts":"${iso}","type":"click","url":"https://a.example/"}`, format: 1 },
  { name: 'the ts twice', site: 'blog', ts, raw: `{"ts":"${iso}","props":{"ts":"${iso}"},"id":"${randomUUID()}","url":"https://a.example/"}`, format: 2 },
  { name: 'the ts as the whole text\'s end', site: 'blog', ts, raw: `{"type":"pageview","url":"https://blog.example/","ts":"${iso}"`, format: 2 },
  { name: 'ts cut where the text has spaces', site: 'blog', ts, raw: `{ "ts" : "${iso}", "type": "pageview" }`, format: 1 },
  { name: 'a tiny text', site: 'blog', ts, raw: '{}', format: 0 },
  { name: 'the empty text', site: 'blog', ts, raw: '', format: 0 },
  { name: 'a ts outside what Date can write', site: 'blog', ts: 9e15, raw: trackerEvent('blog'), format: 1 },
  { name: 'escapes, a lone surrogate escaped, NUL escaped', site: 'blog', ts, raw: `{"url":"https://a.example/\\u00e9","props":{"s":"\\ud800","n":"\\u0000","q":"\\"ts\\":\\""},"ts":"${iso}"}`, format: 2 },
  { name: 'emoji and CJK', site: 'blog', ts, raw: trackerEvent('blog', { props: { title: '日本語のタイトル 🎉👩‍👩‍👧', plan: 'ünïcödé' } }), format: 2 },
  { name: 'U+FFFD itself', site: 'blog', ts, raw: trackerEvent('blog', { props: { r: '\uFFFD' } }), format: 2 },
  { name: '40 KB of props (one-shot deflate)', site: 'blog', ts, raw: trackerEvent('blog', { props: { big: 'abc'.repeat(13_000) } }), format: 2 },
  {
    name: '100 KB that does not compress (both one-shot paths)',
    site: 'blog',
    ts,
    raw: JSON.stringify({ ts: iso, noise: Array.from({ length: 1600 }, () => randomUUID()).join('') }),
    format: 2,
  },
  ...[...naughtyStrings, ...overlongStrings].map((text, index) => ({
    name: `naughty string ${index}`,
    site: 'blog',
    ts,
    raw: trackerEvent('blog', { props: { text }, user_id: text }),
    format: 2,
  })),
];

/** A deterministic generator (xorshift32): the random texts are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const pieces = ['"ts":"', iso, '"', '\\', '\\"', '{', '}', ',', ':', 'é', '🎉', '\uFFFD', '日', ' ', '\n', '"site_id":"', 'blog', 'pageview', 'https://', '2026-'];

function randomText(next: () => number): string {
  let text = '';
  const length = Math.floor(next() * 60);
  for (let index = 0; index < length; index += 1) {
    text += next() < 0.6 ? pieces[Math.floor(next() * pieces.length)] : String.fromCharCode(32 + Math.floor(next() * 95));
  }
  return text;
}

describe('packed raw reads back byte for byte', () => {
  it.each(scenarios)('$name (format $format)', ({ site, ts: rowTs, raw, format }) => {
    const stored = packRaw(site, rowTs, raw);
    expect(stored[0]).toBe(format);
    const read = unpackRaw(site, rowTs, stored);
    expect(read).toBe(raw);
    expect(Buffer.from(read, 'utf8').equals(Buffer.from(raw, 'utf8'))).toBe(true);
    // Never larger than the text plus its format byte.
    expect(stored.length).toBeLessThanOrEqual(Buffer.byteLength(raw) + 1);
  });

  it('a tracker pageview is stored in under half of its text', () => {
    const raw = trackerEvent('6f1c2d9e-8a41-4f0b-9d52-3c7e1b0a5f84');
    expect(packRaw('6f1c2d9e-8a41-4f0b-9d52-3c7e1b0a5f84', ts, raw).length).toBeLessThan(Buffer.byteLength(raw) / 2);
  });

  it('5,000 random texts over 70 sites (more than the codec keeps streams for), packed and read in shuffled order', () => {
    const next = random(26);
    const rows = Array.from({ length: 5000 }, (_, index) => {
      const site = `site-${Math.floor(next() * 70)}`;
      const raw = next() < 0.5 ? randomText(next) : trackerEvent(site, { props: { r: randomText(next) } });
      const rowTs = next() < 0.8 ? ts : ts + index;
      return { site, ts: rowTs, raw, stored: packRaw(site, rowTs, raw) };
    });
    const formats = new Set(rows.map((row) => row.stored[0]));
    // Every format was exercised.
    expect([...formats].sort()).toEqual([0, 1, 2]);
    for (const row of [...rows].sort(() => next() - 0.5)) expect(unpackRaw(row.site, row.ts, row.stored)).toBe(row.raw);
  });

  it('refuses a stored value of an unknown format and a damaged body', () => {
    const stored = packRaw('blog', ts, trackerEvent('blog'));
    expect(() => unpackRaw('blog', ts, Buffer.concat([Buffer.from([9]), stored.subarray(1)]))).toThrow(/unknown stored format 9/);
    const damaged = Buffer.from(stored);
    damaged.fill(0xff, 1, 9);
    expect(() => unpackRaw('blog', ts, damaged)).toThrow();
    // The codec keeps working after a damaged value.
    const raw = trackerEvent('blog');
    expect(unpackRaw('blog', ts, packRaw('blog', ts, raw))).toBe(raw);
  });
});

describe('in the event log', () => {
  it('stores raw_packed, and raw and the virtual columns read from it as from the text', () => {
    const db = openDatabase(join(makeTempDir(), 'sightline.db'));
    try {
      const insert = db.prepare(
        `INSERT INTO events (site_id, dedup_key, type_stored, ts, received_after_ts, source_stored, raw_packed)
         VALUES (?, 1, ?, ?, 250, 1, sightline_pack_raw(?, ?, ?))`,
      );
      const cases = scenarios.slice(0, 16);
      for (const [index, { site, ts: rowTs, raw }] of cases.entries()) insert.run(site, index % 3 === 0 ? 1 : index % 3 === 1 ? 2 : '1', rowTs, site, rowTs, raw);
      const rows = db.prepare('SELECT site_id, ts, type, received_at, raw, length(raw_packed) AS packed, url, props FROM events ORDER BY seq').all() as {
        site_id: string; ts: number; type: string; received_at: number; raw: string; packed: number; url: string | null; props: string | null;
      }[];
      expect(rows.map((row) => row.raw)).toEqual(cases.map((row) => row.raw));
      // type: 1 and 2 are codes, the text '1' stays text.
      expect(rows.map((row) => row.type)).toEqual(cases.map((_, index) => (index % 3 === 0 ? 'pageview' : index % 3 === 1 ? 'engagement' : '1')));
      expect(rows.map((row) => row.received_at)).toEqual(cases.map((row) => row.ts + 250));
      expect(rows[0]!.url).toBe('https://blog.example/posts/hello?utm_source=news');
      expect(rows[0]!.packed).toBeLessThan(Buffer.byteLength(rows[0]!.raw) / 2);
      expect(JSON.parse(rows[13]!.props!)).toEqual({ title: '日本語のタイトル 🎉👩‍👩‍👧', plan: 'ünïcödé' });
    } finally {
      db.close();
    }
  });
});

describe('the query read from the url', () => {
  // Version 9's expression, which sightline_url_query replaces in version 30: both must read every url the same.
  const version9 = `CASE
    WHEN instr(:url, '?') = 0 OR instr(:url, '#') BETWEEN 1 AND instr(:url, '?') THEN NULL
    WHEN instr(:url, '#') = 0 THEN nullif(substr(:url, instr(:url, '?') + 1), '')
    ELSE nullif(substr(:url, instr(:url, '?') + 1, instr(:url, '#') - instr(:url, '?') - 1), '') END`;
  const urls: unknown[] = [
    null, 12, 1.5, 'https://a.example/', 'https://a.example/?', 'https://a.example/?a=1', 'https://a.example/?a=1#x', 'https://a.example/#x?a=1',
    'https://a.example/?#', 'https://a.example/?a#b#c', '??', '#', '?#?', 'https://日本.example/🎉?q=é#ü', 'https://a.example/?q=\uFFFD', ...naughtyStrings,
  ];
  const next = random(9);
  for (let index = 0; index < 2000; index += 1) urls.push(randomText(next).replaceAll('"', '?').replaceAll(':', '#'));

  it('sightline_url_query reads every url as version 9 did (null, numbers, unicode, naughty and 2,000 random texts)', () => {
    const db = openDatabase(join(makeTempDir(), 'sightline.db'));
    try {
      const both = db.prepare(`SELECT ${version9} AS old, sightline_url_query(:url) AS new`);
      const differing = urls.filter((url) => {
        const row = both.get({ url }) as { old: unknown; new: unknown };
        return row.old !== row.new;
      });
      expect(differing).toEqual([]);
      // The random texts reach every branch.
      const answers = urls.map((url) => (both.get({ url }) as { new: string | null }).new);
      expect(answers.filter((answer) => answer === null).length).toBeGreaterThan(100);
      expect(answers.filter((answer) => answer !== null).length).toBeGreaterThan(100);
    } finally {
      db.close();
    }
  });
});

describe('the ts text the codec cuts out', () => {
  it('isoText writes every ts as toISOString does (edges of days, months, leap years, 1970 and 9999, 20,000 random)', () => {
    const edges = [0, 1, 999, 1000, 86_399_999, 86_400_000, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2100, 1, 28), Date.UTC(2100, 2, 1), Date.UTC(2024, 11, 31, 23, 59, 59, 999), 253_402_300_799_999, 253_402_300_800_000, -1, -86_400_001, 8.64e15];
    const next = random(1970);
    const values = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor(next() * 253_402_300_800_000))];
    expect(values.filter((value) => isoText(value) !== new Date(value).toISOString())).toEqual([]);
  });
});
