// The body of POST /sites/:siteId/sourcemaps: { release, file, map }. The map's decoded size is computed from the
// base64 text's length and padding, and refused past 25 MB, before anything is decoded; then it must decode to a
// JSON source map of version 3 that the resolver can read.
import { isUtf8 } from 'node:buffer';
import { FlattenMap, type TraceMap } from '@jridgewell/trace-mapping';
import * as v from 'valibot';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';

/** The spec's "25 MB decoded", in binary megabytes: 26,214,400 bytes. */
export const maxMapBytes = 25 * 1024 * 1024;
/** The base64 text of the largest map (with its padding). */
export const maxMapBase64Length = 4 * Math.ceil(maxMapBytes / 3);
/** The largest body: that text plus the JSON around it, a 128-character release and a 255-character file name. */
export const maxUploadBodyBytes = maxMapBase64Length + 4096;

/**
 * The most characters of `mappings` (all sections together) a map may have. Resolving a frame decodes a map's
 * mappings whole, at about 20 bytes of memory per character: 4 MiB of them (a single script of several megabytes)
 * cost about 80 MiB, which the server can hold; a 25 MB map of nothing but mappings would not fit.
 */
export const maxMappingsLength = 4 * 1024 * 1024;

export const releasePattern = /^[A-Za-z0-9._-]{1,128}$/;
/** A base name: no slash or backslash, no NUL or other control, not starting with a dot, no `..`; ending in .js. */
const filePattern = /^[A-Za-z0-9_~+-][A-Za-z0-9._~+-]{0,251}\.js$/;

export const UploadBody = v.strictObject(
  {
    release: v.pipe(v.string('must be a string'), v.regex(releasePattern, 'must be 1-128 characters: letters, digits, . _ or -')),
    file: v.pipe(
      v.string('must be a string'),
      v.regex(filePattern, 'must be the base name of a .js file (at most 255 characters: letters, digits, . _ ~ + -; no slash, no leading dot)'),
      v.check((name) => !name.includes('..'), 'must not contain a dot segment (..)'),
    ),
    map: v.string('must be a string of base64'),
  },
  (issue) => (issue.expected === 'never' ? 'is not a known field' : 'must be an object'),
);

export interface CheckedUpload {
  release: string;
  file: string;
  /** The map's bytes, as uploaded. */
  bytes: Buffer;
  map: TraceMap;
  /** Characters of its mappings, all sections together. */
  mappingsLength: number;
}

const base64Alphabet = /[^A-Za-z0-9+/]/;

/**
 * The decoded length of standard base64 text (with its padding), or a detail saying why it is not base64. Only
 * the length and the characters are looked at: nothing is decoded.
 * @example decodedLengthOf('aGk=') // → 2
 */
export function decodedLengthOf(text: string): number | ErrorDetail {
  const invalid = (message: string): ErrorDetail => ({ path: '/map', message });
  if (text.length === 0) return invalid('must not be empty');
  if (text.length % 4 !== 0) return invalid('must be base64 with padding (a length that is a multiple of 4)');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (base64Alphabet.test(padding === 0 ? text : text.slice(0, -padding))) {
    return invalid('must be standard base64 (A-Z, a-z, 0-9, + and /, = only as padding; no spaces or line breaks)');
  }
  return (text.length / 4) * 3 - padding;
}

function invalidMap(message: string): ApiError {
  return ApiError.invalidPayload([{ path: '/map', message }]);
}

/** Characters of a map's mappings: its own, or its sections' maps' (indexed maps do not nest, but any depth counts). */
export function mappingsLengthOf(map: Record<string, unknown>): number {
  let length = typeof map.mappings === 'string' ? map.mappings.length : 0;
  if (Array.isArray(map.sections)) {
    for (const section of map.sections as unknown[]) {
      const inner = typeof section === 'object' && section !== null ? (section as { map?: unknown }).map : undefined;
      if (typeof inner === 'object' && inner !== null) length += mappingsLengthOf(inner as Record<string, unknown>);
    }
  }
  return length;
}

/** A source map of version 3: plain (sources and mappings) or indexed (sections). */
function isSourceMapV3(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const map = value as Record<string, unknown>;
  if (map.version !== 3) return false;
  return (typeof map.mappings === 'string' && Array.isArray(map.sources)) || Array.isArray(map.sections);
}

/**
 * Checks the parsed body: 400 for a bad release, file or map, 413 past the decoded cap (before decoding).
 * @example const upload = checkUpload(parseJsonText(text)); // → { release, file, bytes, map }
 */
export function checkUpload(value: unknown): CheckedUpload {
  const body = parseBody(UploadBody, value);
  const length = decodedLengthOf(body.map);
  if (typeof length !== 'number') throw ApiError.invalidPayload([length]);
  if (length > maxMapBytes) throw new ApiError(413, 'payload_too_large', `The source map is ${length} bytes decoded; at most ${maxMapBytes} are accepted`);
  const bytes = Buffer.from(body.map, 'base64');
  if (!isUtf8(bytes)) throw invalidMap('must decode to UTF-8 text');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidMap('must decode to JSON');
  }
  if (!isSourceMapV3(parsed)) throw invalidMap('must decode to a source map of version 3 (version, sources and mappings, or sections)');
  const mappingsLength = mappingsLengthOf(parsed as Record<string, unknown>);
  if (mappingsLength > maxMappingsLength) {
    throw invalidMap(`must have at most ${maxMappingsLength} characters of mappings (it has ${mappingsLength}): they are decoded in memory to resolve stacks`);
  }
  let map: TraceMap;
  try {
    map = new FlattenMap(parsed as ConstructorParameters<typeof FlattenMap>[0]);
  } catch {
    throw invalidMap('must decode to a source map the resolver can read');
  }
  return { release: body.release, file: body.file, bytes, map, mappingsLength };
}
