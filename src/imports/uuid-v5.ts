// RFC 9562 UUID version 5 (SHA-1, name-based): an imported event's id from its source's id or row, so importing the
// same file again yields the same ids and the ingest dedup stores nothing twice.
import { createHash } from 'node:crypto';

/** Sightline's namespace for imported events (a fixed random UUID). */
export const importNamespace = '5d0b3b8e-7c51-4f0e-9a7e-2f6f0c1d9a44';

const namespaceBytes = Buffer.from(importNamespace.replaceAll('-', ''), 'hex');

/**
 * @example uuidV5('umami-csv:blog:8f1c…') → '…-5…-…' (the same every time)
 */
export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
