// What a site's staging log adds on top of the staged tables, for a report: the log rows are read once per report
// and site, oldest first, so a removal cancels the additions logged before it.
import type { Db } from '../../db/open.ts';
import { listSiteStagingLog } from '../queries/staging-log-rows.ts';
import { parseStagingRow, type StagingBody } from '../rollup/staging-log.ts';

interface LoggedSet {
  valueId: number;
  internal: number;
  day: number;
  vids: Set<number>;
}

interface DimLog {
  /** [day, value_id, ...amounts] with the traffic kind alongside. */
  counters: { internal: number; row: number[] }[];
  /** By value id, then by traffic kind and day. */
  sets: Map<number, Map<string, LoggedSet>>;
}

export class StagingLogOverlay {
  private readonly byDim = new Map<number, DimLog>();

  private constructor(bodies: readonly StagingBody[]) {
    for (const body of bodies) {
      for (const [dim, internal, day, valueId, ...amounts] of body.c) this.dimLog(dim!).counters.push({ internal: internal!, row: [day!, valueId!, ...amounts] });
      for (const [dim, valueId, internal, day, ...vids] of body.a) {
        const set = this.set(dim!, valueId!, internal!, day!);
        for (const vid of vids) set.vids.add(vid);
      }
      for (const [dim, valueId, internal, day, ...vids] of body.r) {
        const set = this.set(dim!, valueId!, internal!, day!);
        for (const vid of vids) set.vids.delete(vid);
      }
    }
  }

  /** The overlay of one site (empty, and read in one query, when the writer has moved everything). */
  static read(db: Db, siteId: string): StagingLogOverlay {
    return new StagingLogOverlay(listSiteStagingLog(db, siteId).map(parseStagingRow));
  }

  private dimLog(dim: number): DimLog {
    let found = this.byDim.get(dim);
    if (!found) this.byDim.set(dim, (found = { counters: [], sets: new Map() }));
    return found;
  }

  private set(dim: number, valueId: number, internal: number, day: number): LoggedSet {
    const byValue = this.dimLog(dim).sets;
    let sets = byValue.get(valueId);
    if (!sets) byValue.set(valueId, (sets = new Map()));
    const key = `${internal}|${day}`;
    let found = sets.get(key);
    if (!found) sets.set(key, (found = { valueId, internal, day, vids: new Set() }));
    return found;
  }

  /** [day, value_id, ...amounts] of one dimension and traffic kind over a day range, like the staged table's. */
  counters(dim: number, internal: number, fromDay: number, toDay: number): number[][] {
    const rows: number[][] = [];
    for (const entry of this.byDim.get(dim)?.counters ?? []) {
      const day = entry.row[0]!;
      if (entry.internal === internal && day >= fromDay && day <= toDay) rows.push(entry.row);
    }
    return rows;
  }

  /** [value_id, day] of the sets with logged additions still standing. */
  sets(dim: number, internal: number, fromDay: number, toDay: number): [number, number][] {
    const found: [number, number][] = [];
    for (const sets of this.byDim.get(dim)?.sets.values() ?? []) {
      for (const set of sets.values()) {
        if (set.internal === internal && set.day >= fromDay && set.day <= toDay && set.vids.size > 0) found.push([set.valueId, set.day]);
      }
    }
    return found;
  }

  /** The visitor numbers logged as joining one value's sets over a day range. */
  vids(dim: number, valueId: number, internal: number, fromDay: number, toDay: number): number[] {
    const found: number[] = [];
    for (const set of this.byDim.get(dim)?.sets.get(valueId)?.values() ?? []) {
      if (set.internal === internal && set.day >= fromDay && set.day <= toDay) for (const vid of set.vids) found.push(vid);
    }
    return found;
  }
}
