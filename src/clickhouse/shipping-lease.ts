// One ClickHouse shipper per data directory at a time: the lease the server's shipping loop and `sightline clickhouse
// backfill` hold while they ship (schema.sql version 33, this module's table). Two shippers of one log could read
// the same position in ClickHouse before either inserts, and one would then store the other's batch again; with the
// lease the second one ships nothing and says who holds it. Taken and renewed in one IMMEDIATE transaction, so two
// processes never both hold it. A holder that stops releases it; one that died (SIGKILL, power loss) is detected when
// it ran on this host and its pid is gone, else its lease expires `leaseMs` after its last renewal.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/open.ts';
import { preparedOnce } from '../db/statements.ts';

/** How long a lease lasts without renewal (a holder renews it every quarter of this). */
export const defaultLeaseMs = 60_000;

export type ShipperKind = 'server' | 'backfill';

export interface ShippingLeaseRow {
  holder_id: string;
  kind: ShipperKind;
  host: string;
  pid: number;
  acquired_at: number;
  expires_at: number;
}

export interface LeaseHolder {
  id: string;
  kind: ShipperKind;
  host: string;
  pid: number;
}

const statements = preparedOnce((db) => ({
  current: db.prepare<[], ShippingLeaseRow>('SELECT holder_id, kind, host, pid, acquired_at, expires_at FROM clickhouse_shipping_lease WHERE id = 1'),
  take: db.prepare<{ holder_id: string; kind: string; host: string; pid: number; now: number; expires_at: number }>(
    `INSERT INTO clickhouse_shipping_lease (id, holder_id, kind, host, pid, acquired_at, expires_at) VALUES (1, :holder_id, :kind, :host, :pid, :now, :expires_at)
     ON CONFLICT (id) DO UPDATE SET
       acquired_at = CASE WHEN holder_id = excluded.holder_id THEN acquired_at ELSE excluded.acquired_at END,
       holder_id = excluded.holder_id, kind = excluded.kind, host = excluded.host, pid = excluded.pid, expires_at = excluded.expires_at`,
  ),
  release: db.prepare<{ holder_id: string }>('DELETE FROM clickhouse_shipping_lease WHERE id = 1 AND holder_id = :holder_id'),
}));

/** This process as a new holder (a fresh id: a second shipper in the same process is another holder). */
export function newLeaseHolder(kind: ShipperKind): LeaseHolder {
  return { id: randomUUID(), kind, host: hostname(), pid: process.pid };
}

/** A process of this host that no longer exists (ESRCH); EPERM means it exists under another user. */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Whether `row` still binds others at `now`: not expired, and not left by a dead process of this host. */
function binds(row: ShippingLeaseRow, now: number): boolean {
  if (row.expires_at <= now) return false;
  return !(row.host === hostname() && row.pid !== process.pid && processGone(row.pid));
}

/**
 * Takes the lease, or renews it when `holder` has it, until now + leaseMs. Gives the row that holds it when another
 * holder does (the caller ships nothing).
 */
export function takeShippingLease(db: Db, holder: LeaseHolder, now: number, leaseMs: number = defaultLeaseMs): { held: true } | { held: false; by: ShippingLeaseRow } {
  const { current, take } = statements(db);
  return db
    .transaction(() => {
      const row = current.get();
      if (row && row.holder_id !== holder.id && binds(row, now)) return { held: false as const, by: row };
      take.run({ holder_id: holder.id, kind: holder.kind, host: holder.host, pid: holder.pid, now, expires_at: now + leaseMs });
      return { held: true as const };
    })
    .immediate();
}

/** Gives the lease back (nothing when another holder has taken it since). */
export function releaseShippingLease(db: Db, holder: LeaseHolder): void {
  statements(db).release.run({ holder_id: holder.id });
}

/** The lease as it stands (expired or not), for status and messages. */
export function currentShippingLease(db: Db): ShippingLeaseRow | undefined {
  return statements(db).current.get();
}

/** The shipper holding the lease at `now` (as `sightline clickhouse status` shows it), or null when none does. */
export function shipperOf(db: Db, now: number): { kind: ShipperKind; host: string; pid: number; since: string; until: string } | null {
  const row = currentShippingLease(db);
  if (!row || !binds(row, now)) return null;
  return { kind: row.kind, host: row.host, pid: row.pid, since: new Date(row.acquired_at).toISOString(), until: new Date(row.expires_at).toISOString() };
}

/** Who holds it, for a refusal: "the server on host-a (pid 4242), lease until 2026-11-27T18:00:00.000Z". */
export function describeLease(row: ShippingLeaseRow): string {
  const what = row.kind === 'server' ? 'a running server' : 'a running `sightline clickhouse backfill`';
  return `${what} on ${row.host} (pid ${row.pid}, shipping since ${new Date(row.acquired_at).toISOString()}, lease renewed until ${new Date(row.expires_at).toISOString()})`;
}

/** The error of a shipper refused: names the holder and what to do. */
export class ShippingLeaseHeldError extends Error {
  constructor(
    readonly by: ShippingLeaseRow,
    refused: ShipperKind,
  ) {
    const gone = 'A process that died frees it at once on its own host, else when its lease expires.';
    super(
      refused === 'backfill'
        ? `Another shipper is shipping this data directory to ClickHouse: ${describeLease(by)}. Only one may run at a time (two could store a batch twice). ` +
            (by.kind === 'server' ? 'Stop that server first (while it runs it ships the log itself), then run backfill again. ' : 'Wait for that backfill to finish. ') +
            gone
        : `This server ships nothing to ClickHouse while another shipper holds this data directory's lease: ${describeLease(by)}. It tries again with backoff. ${gone}`,
    );
    this.name = 'ShippingLeaseHeldError';
  }
}
