// A request body's bytes: read from Node with the size bound, and turned into text only when they are UTF-8, so
// the text Sightline checks and stores is exactly what was received (a replacement character would alter it).
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';

/**
 * The body as text; 400 invalid_json (invalid UTF-8) unless the bytes are well-formed UTF-8. A byte order mark is
 * kept, like every other byte (JSON.parse then refuses it).
 * @example toBodyText(Buffer.from('{"a":1}')) → '{"a":1}'
 */
export function toBodyText(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw ApiError.invalidUtf8();
  return bytes.toString('utf8');
}

/**
 * Reads a Node request's body: 413 past `limitBytes` (on Content-Length before reading anything, else as soon as
 * the bytes received pass it, after which nothing more is read), then `toBodyText`. Both the ingest fast path and
 * h3 routes served by Node read bodies through it, so they refuse alike.
 * @example const text = await readNodeBody(request, 1 << 20);
 */
export async function readNodeBody(request: IncomingMessage, limitBytes: number): Promise<string> {
  return toBodyText(await readNodeBodyBytes(request, limitBytes));
}

/**
 * A Node request's body as the bytes received, with the bound of `readNodeBody` (for signatures computed over them).
 * @example const bytes = await readNodeBodyBytes(request, 1 << 20);
 */
export function readNodeBodyBytes(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.reject(ApiError.payloadTooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limitBytes) {
        // Stop reading: the answer closes the connection (closeUnreadConnection) instead of draining the rest.
        request.off('data', onData);
        request.pause();
        reject(ApiError.payloadTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
