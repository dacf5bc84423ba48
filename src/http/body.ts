// Reads request bodies with a size bound, a Content-Type check, a UTF-8 check and a JSON parse that reports
// invalid_json; admin bodies are also refused when a string in them is not well-formed Unicode.
import type { H3Event } from 'h3';
import { IncomingMessage } from 'node:http';
import { readNodeBodyBytes, toBodyText } from './body-bytes.ts';
import { checkBodyDeclaration } from './content-type.ts';
import { ApiError } from './errors.ts';
import { findIllFormedStrings } from './well-formed.ts';

export interface ReadBodyOptions {
  limitBytes: number;
  /** Media types accepted (without parameters). */
  accept: readonly string[];
}

const jsonOnly: ReadBodyOptions = { limitBytes: 1024 * 1024, accept: ['application/json'] };

/**
 * The body as text: 415 for another media type, a charset other than UTF-8 or a content coding (content-type.ts),
 * 413 past `limitBytes` (checked on Content-Length first, then while reading), 400 invalid_json unless it is UTF-8.
 * @example const text = await readBodyText(event, { limitBytes: 1 << 20, accept: ['application/json', 'text/plain'] });
 */
export async function readBodyText(event: H3Event, options: ReadBodyOptions): Promise<string> {
  checkBodyDeclaration((name) => event.req.headers.get(name) ?? undefined, options.accept);
  return toBodyText(await readBodyBytes(event, options.limitBytes));
}

/**
 * The body as the bytes received, without any declaration check: 413 past `limitBytes` (Content-Length first,
 * then while reading). For bodies verified by a signature over their exact bytes (inbound webhooks).
 * @example const bytes = await readBodyBytes(event, 1 << 20);
 */
export async function readBodyBytes(event: H3Event, limitBytes: number): Promise<Buffer> {
  // Served by Node: the same reader as the ingest fast path, which stops reading at the limit.
  const node = event.runtime?.node;
  if (node?.req instanceof IncomingMessage) return readNodeBodyBytes(node.req, limitBytes);
  const declared = event.req.headers.get('content-length');
  if (declared !== null && Number(declared) > limitBytes) throw ApiError.payloadTooLarge(limitBytes);
  const stream = event.req.body;
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel();
      throw ApiError.payloadTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Parses JSON text; empty or malformed bodies are 400 invalid_json. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') throw ApiError.invalidJson('The request body is empty');
  try {
    return JSON.parse(text);
  } catch {
    throw ApiError.invalidJson();
  }
}

/**
 * A JSON body of an administrative request (application/json, UTF-8, at most 1 MiB) whose strings are all
 * well-formed Unicode (400 invalid_payload pointing at each one that is not).
 */
export async function readJsonBody(event: H3Event, options: ReadBodyOptions = jsonOnly): Promise<unknown> {
  const value = parseJsonText(await readBodyText(event, options));
  const illFormed = findIllFormedStrings(value, '');
  if (illFormed.length > 0) throw ApiError.invalidPayload(illFormed);
  return value;
}
