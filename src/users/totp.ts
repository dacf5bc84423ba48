// TOTP (RFC 6238 over RFC 4226's HOTP) with HMAC-SHA1, 30-second steps and 6 digits, as every authenticator app
// expects; secrets are 20 random bytes shown in base32 (RFC 4648, no padding) in an otpauth:// URI. A code is
// accepted for the current step and one step either side (clock drift), and never for a step at or before the last
// one accepted (no replay).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const totpStepSeconds = 30;
export const totpDigits = 6;
const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4226's HOTP of `counter`, `digits` long (RFC 6238's vectors use 8). */
export function hotp(secret: Buffer, counter: number, digits = totpDigits, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac(algorithm, secret).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The TOTP time step of a moment (milliseconds since the epoch). */
export function totpStepOf(nowMs: number): number {
  return Math.floor(nowMs / 1000 / totpStepSeconds);
}

/**
 * The step whose code `code` is, within one step of now and after `lastStep`, or undefined.
 * @example const step = matchTotp(secret, '287082', clock.now(), user.totp_last_step);
 */
export function matchTotp(secret: Buffer, code: string, nowMs: number, lastStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStepOf(nowMs);
  let matched: number | undefined;
  // Every candidate is computed and compared, so the time does not tell which step matched.
  for (const step of [now - 1, now, now + 1]) {
    const same = timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(code));
    if (same && (lastStep === null || step > lastStep) && matched === undefined) matched = step;
  }
  return matched;
}

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let output = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      output += base32Alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) output += base32Alphabet[(value << (5 - bits)) & 31];
  return output;
}

/** The otpauth:// URI an authenticator app reads (Key Uri Format): issuer Sightline, the account's e-mail. */
export function otpauthUri(secret: Buffer, email: string): string {
  const label = encodeURIComponent(`Sightline:${email}`);
  return `otpauth://totp/${label}?secret=${base32Encode(secret)}&issuer=Sightline&algorithm=SHA1&digits=${totpDigits}&period=${totpStepSeconds}`;
}
