// Secrets Sightline must use again (to verify or to sign an HMAC), so they cannot be hashed: sealed with AES-256-GCM
// under one 32-byte key in DATA_DIR/secrets.key (mode 0600, created on first use), outside the database, so a copy
// of sightline.db alone holds only ciphertext. Inbound webhook secrets and outbound endpoint secrets both use it.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Random } from '../clock.ts';
import { createPrivateDirectory, privateFileMode } from '../db/file-modes.ts';

export const secretKeyFileName = 'secrets.key';

/** Sealed: the format byte, the 12-byte nonce, the 16-byte tag, then the ciphertext. */
const formatVersion = 1;
const keyLength = 32;
const nonceLength = 12;
const tagLength = 16;
const headerLength = 1 + nonceLength + tagLength;
/** 32 bytes in base64: 43 characters and one `=`. */
const keyText = /^[A-Za-z0-9+/]{43}=$/;
const keys = new Map<string, Buffer>();

export type SealedSecretFailure = 'key_missing' | 'key_invalid' | 'unknown_format' | 'does_not_open';

/** Why a secret cannot be sealed or opened; the message names the key file and what to do. */
export class SealedSecretError extends Error {
  constructor(
    readonly reason: SealedSecretFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SealedSecretError';
  }
}

/** @example secretKeyPath('./data') // 'data/secrets.key' */
export function secretKeyPath(dataDir: string): string {
  return join(dataDir, secretKeyFileName);
}

/** The key of `dataDir`, or undefined while its file does not exist (nothing was ever sealed there). */
function readKey(dataDir: string): Buffer | undefined {
  const path = secretKeyPath(dataDir);
  const cached = keys.get(resolve(path));
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (!keyText.test(text)) {
    throw new SealedSecretError('key_invalid', `${path} does not hold a secrets key (a 32-byte key in base64, 44 characters): restore the file backed up with the database`);
  }
  const key = Buffer.from(text, 'base64');
  keys.set(resolve(path), key);
  return key;
}

/**
 * Creates the key file once. The key is written and synced under a private name opened with `wx`, then linked to
 * secrets.key: a link never replaces a file, so when a CLI and a server race, the first key published is the one
 * both use, and no reader ever sees a half-written file.
 */
function createKey(dataDir: string, random: Random): void {
  createPrivateDirectory(dataDir);
  const path = secretKeyPath(dataDir);
  const draft = `${path}.${random.bytes(8).toString('hex')}.tmp`;
  const file = openSync(draft, 'wx', privateFileMode);
  try {
    writeFileSync(file, `${random.bytes(keyLength).toString('base64')}\n`);
    fsyncSync(file);
  } finally {
    closeSync(file);
  }
  try {
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  // The new directory entry survives a crash too: losing the key would lose every secret sealed with it.
  const directory = openSync(dataDir, 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}

function keyOf(dataDir: string, random: Random): Buffer {
  const existing = readKey(dataDir);
  if (existing) return existing;
  createKey(dataDir, random);
  return readKey(dataDir)!;
}

/**
 * Copies the key of `dataDir` to `to` with mode 0600, never over an existing file (for `sightline backup`); false
 * when there is no key yet, as nothing was ever sealed there.
 * @example copySecretKey('./data', '/backups/monday.secrets.key') // true
 */
export function copySecretKey(dataDir: string, to: string): boolean {
  const key = readKey(dataDir);
  if (!key) return false;
  writeFileSync(to, `${key.toString('base64')}\n`, { mode: privateFileMode, flag: 'wx' });
  return true;
}

/** The row a secret belongs to: without it, a sealed value copied to another row would open there. */
function associatedBytes(associatedData: string): Buffer {
  if (typeof associatedData !== 'string' || associatedData.length === 0) throw new TypeError('a sealed secret needs associated data: the id of the row it belongs to');
  return Buffer.from(associatedData, 'utf8');
}

/**
 * Seals `secret` for the row named by `associatedData`, creating DATA_DIR/secrets.key on first use.
 * @example const sealed = sealSecret(dataDir, random, 'whsec_…', 'shop/stripe');
 */
export function sealSecret(dataDir: string, random: Random, secret: string | Uint8Array, associatedData: string): Buffer {
  const associated = associatedBytes(associatedData);
  const nonce = random.bytes(nonceLength);
  const cipher = createCipheriv('aes-256-gcm', keyOf(dataDir, random), nonce);
  cipher.setAAD(associated);
  const ciphertext = Buffer.concat([typeof secret === 'string' ? cipher.update(secret, 'utf8') : cipher.update(secret), cipher.final()]);
  return Buffer.concat([Buffer.from([formatVersion]), nonce, cipher.getAuthTag(), ciphertext]);
}

/**
 * The secret sealed by sealSecret for the same row. Never creates a key: throws a SealedSecretError when the key
 * file is missing or invalid, the format is unknown, or the key or the row differ.
 * @example openSecret(dataDir, row.sealed, 'shop/stripe').toString('utf8') // 'whsec_…'
 */
export function openSecret(dataDir: string, sealed: Uint8Array, associatedData: string): Buffer {
  const associated = associatedBytes(associatedData);
  const key = readKey(dataDir);
  const path = secretKeyPath(dataDir);
  if (!key) {
    throw new SealedSecretError('key_missing', `${path} is missing, so no sealed secret can be opened: restore the file backed up with the database, or set the secrets again`);
  }
  if (sealed[0] !== formatVersion || sealed.length < headerLength) {
    throw new SealedSecretError('unknown_format', `a sealed secret has an unknown format (first byte ${sealed[0]}, ${sealed.length} bytes; this release reads format ${formatVersion})`);
  }
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + nonceLength));
  decipher.setAAD(associated);
  decipher.setAuthTag(bytes.subarray(1 + nonceLength, headerLength));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(headerLength)), decipher.final()]);
  } catch {
    throw new SealedSecretError('does_not_open', `a sealed secret does not open with ${path}: the file is not the key it was sealed with, or the value was moved to another row`);
  }
}
