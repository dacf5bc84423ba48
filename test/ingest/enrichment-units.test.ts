// Pure enrichment pieces whose inputs the HTTP tests cannot reach: MaxMind's nested City records (GEOIP_DB) next to
// the bundled database's flat ones, CIDR parsing, exact money, and the raw text of array elements.
import { describe, expect, it } from 'vitest';
import { toGeoFacts } from '../../src/ingest/geo.ts';
import { createInternalIpMatcher } from '../../src/ingest/internal-ips.ts';
import { splitJsonArray } from '../../src/ingest/split-json-array.ts';
import { fromMinorUnits, toMinorUnits } from '../../src/money/minor-units.ts';

describe('geo records', () => {
  it.each([
    ['flat ip-location-db record', { country_code: 'de' }, { country: 'DE', region: null, city: null }],
    ['flat record with region and city', { country_code: 'US', state1: 'California', city: 'San Jose' }, { country: 'US', region: 'California', city: 'San Jose' }],
    [
      'MaxMind GeoLite2 City record',
      { country: { iso_code: 'GB', names: { en: 'United Kingdom' } }, subdivisions: [{ iso_code: 'ENG', names: { en: 'England' } }], city: { names: { en: 'London', de: 'London' } } },
      { country: 'GB', region: 'England', city: 'London' },
    ],
    ['MaxMind record without subdivisions', { country: { iso_code: 'FR' }, city: { names: { fr: 'Paris' } } }, { country: 'FR', region: null, city: null }],
    ['MaxMind subdivision with a code only', { country: { iso_code: 'CA' }, subdivisions: [{ iso_code: 'QC' }] }, { country: 'CA', region: 'QC', city: null }],
    ['empty record', {}, { country: null, region: null, city: null }],
  ])('%s', (_name, record, expected) => {
    expect(toGeoFacts(record)).toEqual(expected);
  });
});

describe('INTERNAL_IPS', () => {
  it('matches addresses and ranges of both families', () => {
    const matcher = createInternalIpMatcher(['192.168.1.10', '10.0.0.0/8', '2001:db8::/32']);
    expect(['192.168.1.10', '10.255.0.1', '2001:db8::42'].map((ip) => matcher.isInternal(ip))).toEqual([true, true, true]);
    expect(['192.168.1.11', '11.0.0.1', '2001:db9::1', null, 'not-an-ip'].map((ip) => matcher.isInternal(ip))).toEqual([false, false, false, false, false]);
  });

  it.each(['10.0.0.0/33', 'example.com', '2001:db8::/129', '1.2.3.4/x'])('refuses %s at start', (entry) => {
    expect(() => createInternalIpMatcher([entry])).toThrow(/INTERNAL_IPS/);
  });
});

describe('money in minor units', () => {
  it.each([
    ['19.99', 'EUR', 1999],
    [19.99, 'EUR', 1999],
    ['1500', 'JPY', 1500],
    ['1.500', 'BHD', 1500],
    ['0.10', 'USD', 10],
    ['5', 'USD', 500],
  ] as const)('%s %s is %i minor units, and back', (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toBe(minor);
    expect(toMinorUnits(fromMinorUnits(minor, currency), currency)).toBe(minor);
  });

  it.each([
    ['1.005', 'EUR'],
    ['1.5', 'JPY'],
    ['abc', 'EUR'],
    ['1e3', 'EUR'],
    ['', 'EUR'],
    [Number.NaN, 'EUR'],
    ['1234567890123456', 'EUR'],
  ] as const)('refuses %s %s', (amount, currency) => {
    expect(toMinorUnits(amount, currency)).toBeUndefined();
  });
});

describe('raw text of array elements', () => {
  it('keeps each element exactly, whatever strings and nesting hold, and counts the members it writes', () => {
    const elements: [text: string, members: number][] = [
      ['{"a":"],[{}\\"\\\\"}', 1],
      ['[1,[2,{"b":[3]}]]', 1],
      ['"text, with ] and [ and a: colon"', 0],
      ['42', 0],
      ['null', 0],
      ['{\n  "spaced": true\n}', 1],
      ['{"a":{"b:":"c:d","\\":":1},"a":2}', 4],
    ];
    expect(splitJsonArray(`[ ${elements.map(([text]) => text).join(' ,\n ')} ]`)).toEqual(elements.map(([text, members]) => ({ text, members })));
    expect(splitJsonArray('[]')).toEqual([]);
  });
});
