// A key's last_used_at, written at most once a minute per key, so reads do not turn into writes; a busy database
// skips the write rather than hold the request (docs/architecture.md, "Who is calling").
import { toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { runWithoutWaiting } from '../db/statements.ts';
import { touchKeyLastUsed } from './queries/key-credentials.ts';

const lastUsedWriteIntervalMs = 60_000;
/** Per database handle: when each key's last_used_at was last written (epoch ms). */
const lastUsedWrites = new WeakMap<Db, Map<string, number>>();

/** @example recordKeyUse(db, key.id, clock.now()); // after the key authenticated a request */
export function recordKeyUse(db: Db, keyId: string, now: number): void {
  let writes = lastUsedWrites.get(db);
  if (!writes) {
    writes = new Map();
    lastUsedWrites.set(db, writes);
  }
  const previous = writes.get(keyId);
  if (previous !== undefined && now - previous < lastUsedWriteIntervalMs) return;
  writes.set(keyId, now);
  try {
    runWithoutWaiting(db, () => touchKeyLastUsed(db, keyId, toIso(now)));
  } catch {
    // A busy database (a projector batch) must neither fail nor hold the request: the next use writes it.
    writes.delete(keyId);
  }
}
