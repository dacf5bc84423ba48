// Country, region and city from an IP address through an .mmdb file; the IP itself is never stored.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Reader } from 'maxmind';
import { embeddedAsset } from '../binary/embedded.ts';

export interface GeoFacts {
  country: string | null;
  region: string | null;
  city: string | null;
}

export interface GeoLookup {
  lookup(ip: string | null): GeoFacts;
}

const unknownPlace: GeoFacts = { country: null, region: null, city: null };

/** The bundled CC0 country database (flat records: { country_code }): embedded in the single executable. */
export function defaultGeoDatabasePath(): string | Buffer {
  const embedded = embeddedAsset('geo-country.mmdb');
  if (embedded) return embedded;
  return createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
}

/**
 * Both shapes: ip-location-db's flat records ({ country_code, state1?, city? }) and MaxMind's nested
 * GeoLite2/GeoIP2 City records ({ country: { iso_code }, subdivisions: [{ names }], city: { names } }).
 */
export function toGeoFacts(record: Record<string, unknown>): GeoFacts {
  const nested = (value: unknown, ...keys: string[]): unknown =>
    keys.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), value);
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  const subdivisions = record.subdivisions;
  const firstSubdivision = Array.isArray(subdivisions) ? subdivisions[0] : undefined;
  const country = text(nested(record, 'country', 'iso_code')) ?? text(record.country_code);
  const region = text(nested(firstSubdivision, 'names', 'en')) ?? text(nested(firstSubdivision, 'iso_code')) ?? text(record.state1);
  const city = text(nested(record, 'city', 'names', 'en')) ?? text(record.city);
  return { country: country ? country.toUpperCase() : null, region, city };
}

/**
 * Readers by file (path, size and modification time): a reader only reads its buffer, so the apps of one process share
 * it; reading the country database took ~28 ms of CPU per app (every test server starts one).
 */
const readers = new Map<string, Reader<any>>();
function readerOf(path: string): Reader<any> {
  const { size, mtimeMs } = statSync(path);
  const key = `${path}\0${size}\0${mtimeMs}`;
  let reader = readers.get(key);
  if (!reader) {
    for (const other of readers.keys()) if (other.startsWith(`${path}\0`)) readers.delete(other);
    readers.set(key, (reader = new Reader<any>(readFileSync(path))));
  }
  return reader;
}

/**
 * Opens the database once (synchronously, at start); lookups are in memory.
 * @example createGeoLookup(config.geoipDb ?? defaultGeoDatabasePath()).lookup('8.8.8.8') → { country: 'US', ... }
 */
export function createGeoLookup(path: string | Buffer): GeoLookup {
  const reader = typeof path === 'string' ? readerOf(path) : new Reader<any>(path);
  const cache = new Map<string, GeoFacts>();
  return {
    lookup: (ip) => {
      if (!ip) return unknownPlace;
      const cached = cache.get(ip);
      if (cached) return cached;
      let facts = unknownPlace;
      try {
        const record = reader.get(ip);
        if (record && typeof record === 'object') facts = toGeoFacts(record as Record<string, unknown>);
      } catch {
        facts = unknownPlace;
      }
      if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
      cache.set(ip, facts);
      return facts;
    },
  };
}
