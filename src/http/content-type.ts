// What a request body may be declared as: one of the route's media types, in UTF-8, without a content coding.
// Sightline decodes nothing else, so the text it checks and stores is exactly the bytes received.
import { ApiError } from './errors.ts';

/** Reads one request header by its lower-case name. */
export type RequestHeader = (name: string) => string | undefined;

const utf8Names = ['utf-8', 'utf8'];

/**
 * The media type of a Content-Type value without parameters, lower case; '' when absent.
 * @example mediaTypeOf('Text/Plain;charset=UTF-8') → 'text/plain'
 */
export function mediaTypeOf(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const end = contentType.indexOf(';');
  return (end < 0 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

/** The charset parameter of a Content-Type value, quoted or not: one regex, no split (beacons always send one). */
const charsetParameter = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The charset parameter of a Content-Type value (unquoted, lower case), or undefined when there is none. */
function charsetOf(contentType: string): string | undefined {
  const match = charsetParameter.exec(contentType);
  return match ? (match[1] ?? match[2]!).toLowerCase() : undefined;
}

/**
 * Refuses with 415 a body Sightline would have to decode before reading it: a media type not in `accept`, a charset
 * other than UTF-8, or a Content-Encoding other than identity.
 * @example checkBodyDeclaration((name) => request.headers[name], ['application/json']);
 */
export function checkBodyDeclaration(header: RequestHeader, accept: readonly string[]): void {
  const contentType = header('content-type');
  if (!accept.includes(mediaTypeOf(contentType))) throw ApiError.unsupportedMediaType(accept);
  if (contentType !== undefined && contentType.includes(';')) {
    const charset = charsetOf(contentType);
    if (charset !== undefined && !utf8Names.includes(charset)) throw ApiError.unsupportedCharset(charset.slice(0, 64));
  }
  const coding = header('content-encoding');
  if (coding !== undefined) {
    for (const token of coding.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '' && name !== 'identity') throw ApiError.unsupportedContentEncoding(name.slice(0, 64));
    }
  }
}
