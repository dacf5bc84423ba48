// Passwords: 12 to 256 characters, stored as an scrypt hash (node:crypto) whose parameters travel in the stored
// string, so they can be raised later without invalidating old hashes. N = 2^15, r = 6, p = 1 (24 MiB of memory per
// hash) measured at 52-60 ms per hash on the reference machine (docs/people.md, "Passwords"). Hashing runs on libuv's
// thread pool (async scrypt), so a sign-in does not stop the HTTP thread. Comparison is constant-time.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export const minPasswordLength = 12;
export const maxPasswordLength = 256;

export const scryptParameters = { N: 2 ** 15, r: 6, p: 1 } as const;
const keyLength = 32;
const saltLength = 16;

function derive(password: string, salt: Buffer, parameters: { N: number; r: number; p: number }): Promise<Buffer> {
  // maxmem above 128 · N · r, the memory scrypt needs (Node's default, 32 MiB, is too tight for larger N).
  const maxmem = 256 * parameters.N * parameters.r;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, { ...parameters, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * @example const stored = await hashPassword('correct horse battery'); // 'scrypt$32768$6$1$<salt>$<hash>'
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, scryptParameters);
  const { N, r, p } = scryptParameters;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Whether `password` matches the stored hash. `stored` undefined (an unknown e-mail, or no password set) hashes
 * against a dummy all the same and answers false, so both take the time of a real check.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = parseStored(stored);
  const key = await derive(password, parsed?.salt ?? dummySalt, parsed?.parameters ?? scryptParameters);
  const expected = parsed?.key ?? dummyKey;
  return timingSafeEqual(key, expected.length === key.length ? expected : dummyKey) && parsed !== undefined;
}

const dummySalt = Buffer.alloc(saltLength, 7);
const dummyKey = Buffer.alloc(keyLength);

function parseStored(stored: string | null | undefined): { parameters: { N: number; r: number; p: number }; salt: Buffer; key: Buffer } | undefined {
  const parts = stored?.split('$');
  if (!parts || parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((value) => Number.isInteger(value) && value > 0)) return undefined;
  const key = Buffer.from(parts[5]!, 'base64url');
  if (key.length !== keyLength) return undefined;
  return { parameters: { N, r, p }, salt: Buffer.from(parts[4]!, 'base64url'), key };
}
