// Carries pending deletions into ClickHouse (run by the shipping loop between batches): once ClickHouse holds every
// stored event up to a deletion's throughSeq (so no batch can bring a deleted row back), it asks ClickHouse to
// delete the rows (ALTER … DELETE, a background mutation); once ClickHouse holds none of them, the record is
// forgotten. Reads leave the rows out meanwhile (deletion-sql.ts), so a deleted subject stops counting at once.
import type { Db } from '../db/open.ts';
import type { ClickHouse } from './client.ts';
import { deleteRowsEverywhere } from './cluster.ts';
import { deletedRows } from './deletion-sql.ts';
import { allPendingDeletions, forgetDeletion, markMutationSent } from './deletions.ts';
import { sql } from './sql-literal.ts';
import { countEventsBetween } from './sqlite-source.ts';

/** One pass over the pending deletions; the number of records forgotten. */
export async function carryDeletions(db: Db, clickhouse: ClickHouse, shippedThrough: number, nowMs: number): Promise<number> {
  let forgotten = 0;
  for (const deletion of allPendingDeletions(db)) {
    if (!deletion.mutationSent) {
      // Stored events up to throughSeq still to ship: a batch read before the deletion could still be among them.
      if (countEventsBetween(db, shippedThrough, deletion.throughSeq) > 0) continue;
      // On a cluster, on every shard's local tables (a Distributed table takes no mutation).
      await deleteRowsEverywhere(clickhouse, 'events', deletedRows(deletion, 'events'));
      await deleteRowsEverywhere(clickhouse, 'signed_visits', deletedRows(deletion, 'visits'));
      await deleteRowsEverywhere(clickhouse, 'identity_bindings', deletedRows(deletion, 'identity_bindings'));
      markMutationSent(db, deletion.id, nowMs);
    }
    const [left] = await clickhouse.query<{ events: number; visits: number; bindings: number }>(
      sql`SELECT (SELECT count() FROM events WHERE ${deletedRows(deletion, 'events')}) AS events, (SELECT count() FROM signed_visits WHERE ${deletedRows(deletion, 'visits')}) AS visits,
        (SELECT count() FROM identity_bindings WHERE ${deletedRows(deletion, 'identity_bindings')}) AS bindings`,
    );
    if (left && left.events === 0 && left.visits === 0 && left.bindings === 0) {
      forgetDeletion(db, deletion.id);
      forgotten++;
    }
  }
  return forgotten;
}
