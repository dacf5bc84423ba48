// Time and randomness are passed in (STYLE rule 11) so tests can control them without mocking modules.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Random {
  uuid(): string;
  bytes(length: number): Buffer;
}

export const systemClock: Clock = { now: () => Date.now() };

export const cryptoRandom: Random = {
  uuid: () => randomUUID(),
  bytes: (length) => randomBytes(length),
};

/** ISO-8601 UTC with milliseconds, the one timestamp format stored and returned. */
export function toIso(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}
