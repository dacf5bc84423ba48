// Reads request bodies with a size bound, a Content-Type check and a JSON parse that reports invalid_json.
import type { H3Event } from 'h3';
import { ApiError } from './errors.ts';

export interface ReadBodyOptions {
  limitBytes: number;
  /** Media types accepted (without parameters). */
  accept: string[];
}

const jsonOnly: ReadBodyOptions = { limitBytes: 1024 * 1024, accept: ['application/json'] };

/** The media type of the request without parameters, lower case; '' when absent. */
export function mediaTypeOf(event: H3Event): string {
  const header = event.req.headers.get('content-type') ?? '';
  return header.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * The body as text, refused with 413 past `limitBytes` (checked on Content-Length first, then while streaming).
 * @example const text = await readBodyText(event, { limitBytes: 1 << 20, accept: ['application/json', 'text/plain'] });
 */
export async function readBodyText(event: H3Event, options: ReadBodyOptions): Promise<string> {
  if (!options.accept.includes(mediaTypeOf(event))) throw ApiError.unsupportedMediaType(options.accept);
  const declared = event.req.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > options.limitBytes) throw ApiError.payloadTooLarge(options.limitBytes);
    // Node's parser frames the body by Content-Length, so it cannot be longer than declared.
    return event.req.text();
  }
  const stream = event.req.body;
  if (!stream) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > options.limitBytes) {
      await reader.cancel();
      throw ApiError.payloadTooLarge(options.limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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

/** A JSON body of an administrative request (application/json, at most 1 MiB). */
export async function readJsonBody(event: H3Event, options: ReadBodyOptions = jsonOnly): Promise<unknown> {
  return parseJsonText(await readBodyText(event, options));
}
