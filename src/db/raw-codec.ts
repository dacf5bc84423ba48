// The event log's raw JSON, stored compressed and read back byte for byte (schema.sql version 30, docs/scaling.md
// "Size"). A stored value is one format byte and its body:
//   0  the UTF-8 text itself (nothing smaller was found);
//   1  the UTF-8 text, raw deflate (RFC 1951) with the preset dictionary of the event's site (below);
//   2  as 1, of the text with the event's ts, as toISOString() writes it, cut out after the first `"ts":"` (the
//      tracker sends exactly that string; reading puts it back at the first `"ts":"`, which the cut cannot move).
// The dictionary is frozen: what format 1 and 2 mean never changes (a better dictionary takes new format numbers).
// It is the JSON the tracker and the API send (src/ingest/, web/tracker), ending with the site's own id, so the
// repeated keys, the site id and the timestamp cost a few bits instead of about 120 bytes of a 230-byte event.
// Both directions are SQL functions of the row's own stored columns (site_id, ts), registered on every connection
// (src/db/open.ts): the virtual column events.raw reads through sightline_raw, and the upgrade packs through
// sightline_pack_raw.
import zlib from 'node:zlib';
import type Database from 'better-sqlite3';

const plain = 0;
const deflated = 1;
const deflatedWithoutTs = 2;

/** Frozen with formats 1 and 2. The most frequent strings last: deflate codes near distances in fewer bits. */
const dictionaryBase =
  '{"revenue":{"amount":"","currency":"EUR"},"currency":"USD"},"user_id":"","props":{"plan":"","value":' +
  '"context":{"locale":"en-US","title":"","screen":{"w":1920,"h":1080}}},"props":{"scroll_depth":,"engaged_ms":}' +
  '"type":"engagement","type":"click","type":"signup","type":"purchase",' +
  '"referrer":null,"referrer":"https://www.google.com/","url":"https://www.' +
  '?utm_source=&utm_medium=&utm_campaign=' +
  '{"id":"","site_id":"","anon_id":"","ts":"2026-","type":"pageview","url":"https://","referrer":"https://';

const windowBits = 12;
const level = 6;
const memLevel = 4;
const tsKey = '"ts":"';

interface SiteCodec {
  dictionary: Buffer;
  deflate?: zlib.DeflateRaw;
  inflate?: zlib.InflateRaw;
}

// One zlib stream per site and direction, reset between values. zlib's one-shot functions build a stream object per
// call, which costs several times the compression itself on a 230-byte event (measured: about 25 µs against 8), so
// the reused stream drives its native handle directly, as zlib's own one-shot functions do. Anything unexpected from
// that handle falls back to the one-shot functions, whose output and input are the same deflate streams.
const sites = new Map<string, SiteCodec>();
const maxSites = 64;
const scratch = Buffer.alloc(64 * 1024);

function codecOf(siteId: string): SiteCodec {
  let codec = sites.get(siteId);
  if (codec) {
    // Most recently used last: the oldest is the one dropped.
    sites.delete(siteId);
    sites.set(siteId, codec);
    return codec;
  }
  codec = { dictionary: Buffer.from(`${dictionaryBase}"site_id":"${siteId}"`, 'utf8') };
  sites.set(siteId, codec);
  if (sites.size > maxSites) {
    const [oldest, dropped] = sites.entries().next().value as [string, SiteCodec];
    sites.delete(oldest);
    dropped.deflate?.close();
    dropped.inflate?.close();
  }
  return codec;
}

interface HandleStream {
  _handle?: { reset(): void; writeSync(flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void };
  _writeState?: Uint32Array;
  destroyed: boolean;
}

/** Runs `input` through the stream's native handle into `scratch`; undefined when that path is unavailable or the output did not fit. */
function throughHandle(stream: zlib.DeflateRaw | zlib.InflateRaw, input: Buffer): Buffer | undefined {
  const inner = stream as unknown as HandleStream;
  const handle = inner._handle;
  const state = inner._writeState;
  if (!handle || !state || inner.destroyed || typeof handle.writeSync !== 'function') return undefined;
  try {
    handle.reset();
    handle.writeSync(zlib.constants.Z_FINISH, input, 0, input.length, scratch, 0, scratch.length);
  } catch {
    return undefined;
  }
  const outLeft = state[0]!;
  const inLeft = state[1]!;
  if (inner.destroyed || inLeft !== 0 || outLeft === 0) return undefined;
  return Buffer.from(scratch.subarray(0, scratch.length - outLeft));
}

function newStream<T extends zlib.DeflateRaw | zlib.InflateRaw>(stream: T): T {
  // An error of the native handle is also emitted on the stream: without a listener it would end the process.
  stream.on('error', () => {});
  return stream;
}

function deflate(codec: SiteCodec, text: Buffer): Buffer {
  if (text.length < scratch.length / 2) {
    codec.deflate ??= newStream(zlib.createDeflateRaw({ windowBits, level, memLevel, dictionary: codec.dictionary }));
    const out = throughHandle(codec.deflate, text);
    if (out) return out;
    codec.deflate.close();
    codec.deflate = undefined;
  }
  return zlib.deflateRawSync(text, { windowBits, level, memLevel, dictionary: codec.dictionary });
}

function inflate(codec: SiteCodec, body: Buffer): Buffer {
  codec.inflate ??= newStream(zlib.createInflateRaw({ windowBits: 15, dictionary: codec.dictionary }));
  const out = throughHandle(codec.inflate, body);
  if (out) return out;
  codec.inflate.close();
  codec.inflate = undefined;
  // The slow path also reports a damaged value as an error.
  return zlib.inflateRawSync(body, { windowBits: 15, dictionary: codec.dictionary });
}

let lastIsoTs = Number.NaN;
let lastIso: string | undefined;

const twoDigits = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));

/**
 * new Date(ts).toISOString() for ts from 1970 to 9999, in integer arithmetic: reading a packed row builds it once per
 * row, and toISOString cost about a third of the inflate itself. (Days to a civil date: H. Hinnant's algorithm.)
 */
export function isoText(ts: number): string {
  if (!(ts >= 0 && ts <= 253_402_300_799_999 && Number.isInteger(ts))) return new Date(ts).toISOString();
  const days = Math.floor(ts / 86_400_000);
  const msOfDay = ts - days * 86_400_000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(msOfDay / 3_600_000);
  const minutes = Math.floor((msOfDay % 3_600_000) / 60_000);
  const seconds = Math.floor((msOfDay % 60_000) / 1000);
  return `${String(year).padStart(4, '0')}-${twoDigits[month]}-${twoDigits[day]}T${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[msOfDay % 1000]}Z`;
}

/** The ISO text of ts as the tracker writes it, or undefined where it has none (the last one kept: a batch often shares it). */
function isoOf(ts: number): string | undefined {
  if (ts === lastIsoTs) return lastIso;
  lastIsoTs = ts;
  lastIso = Number.isSafeInteger(ts) && Math.abs(ts) <= 8.64e15 ? isoText(ts) : undefined;
  return lastIso;
}

function withFormat(format: number, body: Buffer): Buffer {
  const stored = Buffer.allocUnsafe(body.length + 1);
  stored[0] = format;
  body.copy(stored, 1);
  return stored;
}

/**
 * The stored form of an event's raw text: whichever of the formats above is smallest.
 * @example unpackRaw('blog', ts, packRaw('blog', ts, raw)) === raw
 */
export function packRaw(siteId: string, ts: number, raw: string): Buffer {
  const codec = codecOf(siteId);
  const iso = isoOf(ts);
  const at = raw.indexOf(tsKey);
  const cut = iso !== undefined && at >= 0 && raw.startsWith(`${iso}"`, at + tsKey.length);
  const text = Buffer.from(cut ? raw.slice(0, at + tsKey.length) + raw.slice(at + tsKey.length + iso.length) : raw, 'utf8');
  const body = deflate(codec, text);
  const utf8Length = cut ? text.length + Buffer.byteLength(iso) : text.length;
  const stored = body.length >= utf8Length ? withFormat(plain, Buffer.from(raw, 'utf8')) : withFormat(cut ? deflatedWithoutTs : deflated, body);
  // The writer reads the new row's virtual columns back (src/event-store/queries/event-rows.ts): no need to inflate it.
  remember(siteId, ts, stored, raw);
  return stored;
}

/** The raw text `packRaw` stored, byte for byte. Throws on a value no version of packRaw wrote. */
export function unpackRaw(siteId: string, ts: number, stored: Buffer): string {
  const format = stored[0];
  const body = stored.subarray(1);
  if (format === plain) return body.toString('utf8');
  if (format !== deflated && format !== deflatedWithoutTs) throw new Error(`events.raw: unknown stored format ${format}`);
  const text = inflate(codecOf(siteId), body).toString('utf8');
  if (format === deflated) return text;
  const iso = isoOf(ts);
  const at = text.indexOf(tsKey);
  if (iso === undefined || at < 0) throw new Error('events.raw: a value stored without its ts has no place for it');
  return text.slice(0, at + tsKey.length) + iso + text.slice(at + tsKey.length);
}

// The last value read, for the virtual columns that each read raw again in one row (id, anon_id, url, referrer,
// props, query: each json_valid and json_extract of raw recomputes it).
let lastSite = '';
let lastTs = Number.NaN;
let lastStored: Buffer | undefined;
let lastText = '';

function remember(siteId: string, ts: number, stored: Buffer, text: string): void {
  lastSite = siteId;
  lastTs = ts;
  lastStored = stored;
  lastText = text;
}

function unpackRawOnce(siteId: string, ts: number, stored: Buffer): string {
  if (ts === lastTs && siteId === lastSite && lastStored !== undefined && stored.equals(lastStored)) return lastText;
  const text = unpackRaw(siteId, ts, stored);
  // better-sqlite3 hands each call a new Buffer, which nothing else keeps.
  remember(siteId, ts, stored, text);
  return text;
}

/**
 * The query string of a URL read from raw, as schema.sql version 9's virtual column computed it with instr and substr:
 * after the first "?" unless a "#" comes before it, up to the next "#"; null when empty or when url is not text (a
 * number or boolean has no "?"). One call per row instead of the seven readings of url (each inflating raw through
 * sightline_raw) that the SQL expression made.
 */
export function queryOfUrl(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  const question = url.indexOf('?');
  if (question < 0) return null;
  const hash = url.indexOf('#');
  if (hash >= 0 && hash < question) return null;
  const query = hash < 0 ? url.slice(question + 1) : url.slice(question + 1, hash);
  return query === '' ? null : query;
}

/** Registers sightline_raw(site_id, ts, raw_packed), sightline_pack_raw(site_id, ts, raw) and sightline_url_query(url) on a connection. */
export function registerRawFunctions(db: Database.Database): void {
  db.function('sightline_url_query', { deterministic: true }, (url: unknown) => queryOfUrl(url));
  db.function('sightline_raw', { deterministic: true }, (siteId: unknown, ts: unknown, stored: unknown) =>
    stored === null ? null : unpackRawOnce(String(siteId), Number(ts), stored as Buffer),
  );
  db.function('sightline_pack_raw', { deterministic: true }, (siteId: unknown, ts: unknown, raw: unknown) =>
    raw === null ? null : packRaw(String(siteId), Number(ts), String(raw)),
  );
}
