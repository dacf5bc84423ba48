// The secret box on a real data directory: the versioned format, the one key file (0600, created once, never
// replaced, read once per data dir), associated data required, and a clear error for each way opening fails.
import { createDecipheriv } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../src/clock.ts';
import { copySecretKey, openSecret, SealedSecretError, sealSecret, secretKeyPath } from '../../src/secrets/secret-box.ts';
import { makeTempDir } from '../_setup.ts';

const freshDataDir = () => join(makeTempDir('sightline-secrets-'), 'data');

/** The reason of the SealedSecretError `work` throws, with its message. */
function failureOf(work: () => unknown): { reason: string; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof SealedSecretError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected a SealedSecretError, nothing was thrown');
}

describe('sealing', () => {
  it('creates DATA_DIR (0700) and one key file (0600, 32 bytes in base64) on first use, and nothing else', () => {
    const dataDir = freshDataDir();
    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_first', 'shop/stripe');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir)).toEqual(['secrets.key']);
    expect(statSync(secretKeyPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(secretKeyPath(dataDir), 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(openSecret(dataDir, sealed, 'shop/stripe').toString('utf8')).toBe('whsec_first');
  });

  it('writes format 1: the format byte, a fresh 12-byte nonce, the 16-byte tag, then the ciphertext', () => {
    const dataDir = freshDataDir();
    const first = sealSecret(dataDir, cryptoRandom, 'whsec_same', 'shop/stripe');
    const second = sealSecret(dataDir, cryptoRandom, 'whsec_same', 'shop/stripe');
    expect(first[0]).toBe(1);
    expect(first).toHaveLength(1 + 12 + 16 + 'whsec_same'.length);
    expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
    expect(first.includes(Buffer.from('whsec_same'))).toBe(false);
  });

  it('seals bytes as well as text', () => {
    const dataDir = freshDataDir();
    const secret = cryptoRandom.bytes(24);
    expect(openSecret(dataDir, sealSecret(dataDir, cryptoRandom, secret, 'endpoint-1'), 'endpoint-1').equals(secret)).toBe(true);
  });

  it('uses a key file that is already there (written by another process) and never replaces it', () => {
    const dataDir = freshDataDir();
    mkdirSync(dataDir, { recursive: true });
    const key = cryptoRandom.bytes(32);
    writeFileSync(secretKeyPath(dataDir), `${key.toString('base64')}\n`, { mode: 0o600 });
    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_theirs', 'shop/stripe');
    expect(readFileSync(secretKeyPath(dataDir), 'utf8')).toBe(`${key.toString('base64')}\n`);
    // Opened independently of the module, with the key written above.
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
    decipher.setAAD(Buffer.from('shop/stripe'));
    decipher.setAuthTag(sealed.subarray(13, 29));
    expect(Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8')).toBe('whsec_theirs');
  });

  it('requires associated data to seal and to open', () => {
    const dataDir = freshDataDir();
    expect(() => sealSecret(dataDir, cryptoRandom, 'whsec_x', '')).toThrow(/needs associated data/);
    expect(readdirSync(join(dataDir, '..'))).toEqual([]);
    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_x', 'shop/stripe');
    expect(() => openSecret(dataDir, sealed, '')).toThrow(/needs associated data/);
  });

  it('refuses a key file that is not a 32-byte base64 key, and leaves it as it is', () => {
    const dataDir = freshDataDir();
    mkdirSync(dataDir, { recursive: true });
    for (const text of ['not a key\n', `${cryptoRandom.bytes(31).toString('base64')}\n`, `${cryptoRandom.bytes(33).toString('base64')}\n`, '']) {
      writeFileSync(secretKeyPath(dataDir), text);
      const failure = failureOf(() => sealSecret(dataDir, cryptoRandom, 'whsec_x', 'shop/stripe'));
      expect(failure.reason).toBe('key_invalid');
      expect(failure.message).toContain(secretKeyPath(dataDir));
      expect(readFileSync(secretKeyPath(dataDir), 'utf8')).toBe(text);
    }
  });
});

describe('opening', () => {
  it('answers key_missing, naming the file, when DATA_DIR has no key, and creates none', () => {
    const sealed = sealSecret(freshDataDir(), cryptoRandom, 'whsec_x', 'shop/stripe');
    const dataDir = freshDataDir();
    mkdirSync(dataDir, { recursive: true });
    const failure = failureOf(() => openSecret(dataDir, sealed, 'shop/stripe'));
    expect(failure).toEqual({ reason: 'key_missing', message: expect.stringContaining(`${secretKeyPath(dataDir)} is missing`) });
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('answers does_not_open under another key or for another row', () => {
    const dataDir = freshDataDir();
    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_x', 'shop/stripe');
    expect(failureOf(() => openSecret(dataDir, sealed, 'blog/stripe')).reason).toBe('does_not_open');
    const otherDataDir = freshDataDir();
    sealSecret(otherDataDir, cryptoRandom, 'whsec_y', 'shop/stripe');
    const failure = failureOf(() => openSecret(otherDataDir, sealed, 'shop/stripe'));
    expect(failure).toEqual({ reason: 'does_not_open', message: expect.stringContaining(secretKeyPath(otherDataDir)) });
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(failureOf(() => openSecret(dataDir, tampered, 'shop/stripe')).reason).toBe('does_not_open');
  });

  it('reads format 1 only, from 29 bytes (an empty secret) up; 28 bytes or another format byte is unknown_format', () => {
    const dataDir = freshDataDir();
    const empty = sealSecret(dataDir, cryptoRandom, '', 'row-1');
    expect(empty).toHaveLength(29);
    expect(openSecret(dataDir, empty, 'row-1')).toEqual(Buffer.alloc(0));
    expect(failureOf(() => openSecret(dataDir, empty.subarray(0, 28), 'row-1')).reason).toBe('unknown_format');
    expect(failureOf(() => openSecret(dataDir, Buffer.alloc(0), 'row-1')).reason).toBe('unknown_format');
    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_x', 'row-1');
    // The layout of the two formats this module replaced: the nonce first, no format byte.
    expect(failureOf(() => openSecret(dataDir, sealed.subarray(1), 'row-1')).reason).toBe('unknown_format');
    const nextFormat = Buffer.from(sealed);
    nextFormat[0] = 2;
    expect(failureOf(() => openSecret(dataDir, nextFormat, 'row-1')).message).toContain('unknown format (first byte 2');
  });

  it('reads each data directory\'s key once: a key file replaced under a running process takes effect at its restart', () => {
    const dataDir = freshDataDir();
    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_x', 'shop/stripe');
    writeFileSync(secretKeyPath(dataDir), `${cryptoRandom.bytes(32).toString('base64')}\n`);
    expect(openSecret(dataDir, sealed, 'shop/stripe').toString('utf8')).toBe('whsec_x');
    // The same directory named another way shares the cached key.
    expect(openSecret(`${dataDir}/./`, sealed, 'shop/stripe').toString('utf8')).toBe('whsec_x');
  });
});

describe('copySecretKey', () => {
  it('copies the key (0600) so a restored data directory opens what was sealed; false without a key; never overwrites', () => {
    const dataDir = freshDataDir();
    const scratch = join(dataDir, '..');
    expect(copySecretKey(dataDir, join(scratch, 'none.secrets.key'))).toBe(false);
    expect(readdirSync(scratch)).toEqual([]);

    const sealed = sealSecret(dataDir, cryptoRandom, 'whsec_kept', 'shop/stripe');
    const copy = join(scratch, 'monday.secrets.key');
    expect(copySecretKey(dataDir, copy)).toBe(true);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(readFileSync(copy, 'utf8')).toBe(readFileSync(secretKeyPath(dataDir), 'utf8'));

    const restored = join(scratch, 'restored');
    mkdirSync(restored);
    writeFileSync(secretKeyPath(restored), readFileSync(copy));
    expect(openSecret(restored, sealed, 'shop/stripe').toString('utf8')).toBe('whsec_kept');
    expect(() => copySecretKey(dataDir, copy)).toThrow(/EEXIST/);
  });
});
