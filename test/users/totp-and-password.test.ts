// The primitives against their references: HOTP/TOTP against RFC 6238's SHA-1 test vectors (appendix B), and the
// password hash: its stored form, a right and a wrong password, and the dummy check of an unknown account.
import { describe, expect, it } from 'vitest';
import { hashPassword, scryptParameters, verifyPassword } from '../../src/users/password.ts';
import { base32Encode, hotp, matchTotp, totpStepOf } from '../../src/users/totp.ts';

// RFC 6238, appendix B: the SHA-1 seed is the ASCII string "12345678901234567890", 8 digits, X = 30, T0 = 0.
const rfcSeed = Buffer.from('12345678901234567890', 'ascii');
const rfcVectors: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(rfcVectors)('at %i s the SHA-1 code is %s', (seconds, code) => {
    expect(hotp(rfcSeed, totpStepOf(seconds * 1000), 8)).toBe(code);
  });

  it('accepts the current step and one either side, never a step at or before the last one used', () => {
    const now = 1111111111 * 1000;
    const step = totpStepOf(now);
    const code = (s: number) => hotp(rfcSeed, s);
    expect(matchTotp(rfcSeed, code(step), now, null)).toBe(step);
    expect(matchTotp(rfcSeed, code(step - 1), now, null)).toBe(step - 1);
    expect(matchTotp(rfcSeed, code(step + 1), now, null)).toBe(step + 1);
    expect(matchTotp(rfcSeed, code(step - 2), now, null)).toBeUndefined();
    expect(matchTotp(rfcSeed, code(step + 2), now, null)).toBeUndefined();
    expect(matchTotp(rfcSeed, code(step), now, step)).toBeUndefined();
    expect(matchTotp(rfcSeed, code(step + 1), now, step)).toBe(step + 1);
    expect(matchTotp(rfcSeed, '12345', now, null)).toBeUndefined();
  });

  it('encodes secrets in base32 (RFC 4648 test vectors, without padding)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Encode(Buffer.from('f'))).toBe('MY');
  });
});

describe('password hash (scrypt)', () => {
  it('stores its parameters and a salt, and checks right and wrong passwords', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(new RegExp(`^scrypt\\$${scryptParameters.N}\\$${scryptParameters.r}\\$${scryptParameters.p}\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`));
    expect(stored).not.toBe(await hashPassword('correct horse battery staple'));
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', undefined)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', 'scrypt$garbage')).toBe(false);
  });
});
