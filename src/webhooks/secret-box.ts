// Webhook secrets at rest: AES-256-GCM under a key kept in its own file, DATA_DIR/webhook-secrets.key (mode 0600),
// so a copy of the database (a backup, a leaked file) holds only ciphertext. The (site, adapter) is the associated
// data: a sealed secret moved to another row does not open.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Random } from '../clock.ts';
import { createPrivateDirectory, privateFileMode } from '../db/file-modes.ts';

const formatVersion = 1;
const nonceLength = 12;
const tagLength = 16;
const keys = new Map<string, Buffer>();

export function secretKeyPath(dataDir: string): string {
  return join(dataDir, 'webhook-secrets.key');
}

/** The key of `dataDir`, or undefined when its file does not exist yet (nothing was ever sealed there). */
function readKey(dataDir: string): Buffer | undefined {
  const path = secretKeyPath(dataDir);
  const cached = keys.get(path);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte key (base64)`);
  keys.set(path, key);
  return key;
}

/** The key, generated on first use; a concurrent process (the CLI beside a server) keeps whichever was written first. */
function keyOf(dataDir: string, random: Random): Buffer {
  const existing = readKey(dataDir);
  if (existing) return existing;
  createPrivateDirectory(dataDir);
  try {
    writeFileSync(secretKeyPath(dataDir), `${random.bytes(32).toString('base64')}\n`, { mode: privateFileMode, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readKey(dataDir)!;
}

/**
 * @example const sealed = sealSecret(dataDir, random, 'whsec_…', 'shop/stripe');
 */
export function sealSecret(dataDir: string, random: Random, secret: string, boundTo: string): Buffer {
  const nonce = random.bytes(nonceLength);
  const cipher = createCipheriv('aes-256-gcm', keyOf(dataDir, random), nonce);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([formatVersion]), nonce, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the key file is missing or is not the one the secret was sealed with (the caller answers 500). */
export function openSecret(dataDir: string, sealed: Buffer, boundTo: string): string {
  const key = readKey(dataDir);
  if (!key) throw new Error(`${secretKeyPath(dataDir)} is missing: webhook secrets cannot be read; set them again (docs/webhooks.md)`);
  if (sealed[0] !== formatVersion || sealed.length < 1 + nonceLength + tagLength) throw new Error('a sealed webhook secret has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + nonceLength));
  decipher.setAAD(Buffer.from(boundTo, 'utf8'));
  decipher.setAuthTag(sealed.subarray(1 + nonceLength, 1 + nonceLength + tagLength));
  return Buffer.concat([decipher.update(sealed.subarray(1 + nonceLength + tagLength)), decipher.final()]).toString('utf8');
}
