// Endpoint signing secrets must be usable to sign, so they cannot be hashed: they are sealed with AES-256-GCM under
// a 32-byte key kept in DATA_DIR/webhook-secret-key (mode 0600, generated on first use), outside the database, so a
// copy of sightline.db (a backup, a stolen file) does not reveal them. The endpoint id is the associated data: a
// sealed secret moved to another row does not open.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Random } from '../clock.ts';
import { createPrivateDirectory, privateFileMode } from '../db/file-modes.ts';

const keyFileName = 'webhook-secret-key';
const ivBytes = 12;
const tagBytes = 16;
const keys = new Map<string, Buffer>();

/** Where the sealing key of `dataDir` lives. @example secretKeyPath('./data') // './data/webhook-secret-key' */
export function secretKeyPath(dataDir: string): string {
  return join(dataDir, keyFileName);
}

/** The sealing key of `dataDir`, generated the first time; a concurrent process keeps whichever was written first. */
export function sealingKeyOf(dataDir: string, random: Random): Buffer {
  const known = keys.get(dataDir);
  if (known) return known;
  const path = secretKeyPath(dataDir);
  let key = readKey(path);
  if (!key) {
    createPrivateDirectory(dataDir);
    try {
      writeFileSync(path, random.bytes(32).toString('base64') + '\n', { mode: privateFileMode, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    key = readKey(path);
    if (!key) throw new Error(`${path} does not hold a 32-byte base64 key`);
  }
  keys.set(dataDir, key);
  return key;
}

function readKey(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = Buffer.from(text, 'base64');
  return key.length === 32 ? key : undefined;
}

/** @example const sealed = sealSecret(key, secretBytes, endpointId, random); */
export function sealSecret(key: Buffer, secret: Buffer, associated: string, random: Random): Buffer {
  const iv = random.bytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The secret sealed by sealSecret; throws when the key, the data or the associated id differ. */
export function openSecret(key: Buffer, sealed: Buffer, associated: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivBytes));
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(sealed.subarray(ivBytes, ivBytes + tagBytes));
  return Buffer.concat([decipher.update(sealed.subarray(ivBytes + tagBytes)), decipher.final()]);
}
