// API key plaintexts and their digests: sk_<workspace_slug>_<32 base64url chars> from a CSPRNG, SHA-256 stored.
import { createHash } from 'node:crypto';
import type { Random } from '../clock.ts';

/** 24 random bytes are exactly 32 base64url characters (192 bits). */
export function generateKeyPlaintext(slug: string, random: Random): string {
  return `sk_${slug}_${random.bytes(24).toString('base64url')}`;
}

export function hashSecret(plaintext: string): Buffer {
  return createHash('sha256').update(plaintext, 'utf8').digest();
}
