// RFC 9562 UUID version 5 (SHA-1, name-based): an imported event's id from its source's id or row, so importing the
// same file again yields the same ids and the ingest dedup stores nothing twice.
import { hash } from 'node:crypto';

/** Sightline's namespace for imported events (a fixed random UUID). */
export const importNamespace = '5d0b3b8e-7c51-4f0e-9a7e-2f6f0c1d9a44';

/** The namespace's 16 bytes, then room for a name: one buffer reused by every call (a row's id costs no allocation but the digest). */
let scratch = Buffer.alloc(16 + 4096);
Buffer.from(importNamespace.replaceAll('-', ''), 'hex').copy(scratch);

/**
 * @example uuidV5('umami-csv:blog:8f1c…') → '…-5…-…' (the same every time)
 */
export function uuidV5(name: string): string {
  const length = Buffer.byteLength(name, 'utf8');
  if (16 + length > scratch.length) {
    const larger = Buffer.alloc(16 + length * 2);
    scratch.copy(larger, 0, 0, 16);
    scratch = larger;
  }
  scratch.write(name, 16, 'utf8');
  // One-shot SHA-1 (crypto.hash): about twice as fast as a createHash object per row.
  const digest = hash('sha1', scratch.subarray(0, 16 + length), 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
