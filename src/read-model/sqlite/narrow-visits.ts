// The raw pass's visits read from the projector's narrow rows (visit_sequences, schema 32: one row per visit with its
// kept events packed) instead of cut out of the event log (docs/reports.md, "Narrow visits"): the same RawVisits as
// streamRawVisits hands over, each event with its time, type, path and revenue, the entry with the visit's filter
// values and campaign, ids turned back into texts through the site's dictionary (read once per read). A month of a
// 10M-event site is 150,000 narrow rows instead of 790,000 wide ones.
// What the rows do not keep, no reader of the pass may need: an event's query string (a grouping by page), its props
// (a goal filter with props: the visits that converted are found by their events' seqs over their whole span), and
// the visit attributes of events after the first (each event carries the entry's; every reader takes a visit's
// attributes from its entry). passRawVisits (grouped-report.ts) reads these rows only when none is needed and the
// rows are as of the read's position. A goal with props in the Goals panel is matched by seq, which the rows keep.
import type { Db } from '../../db/open.ts';
import type { RawEventRow } from '../../event-store/queries/raw-window-events.ts';
import { findValueId } from '../../projector/queries/value-rows.ts';
import { readProjectorPosition } from '../../projector/queries/projector-state.ts';
import { attributeIdColumns } from '../../projector/queries/visit-sequence-rows.ts';
import { unpackVisitEvents } from '../../projector/visit-events-pack.ts';
import { visitEventsReady } from '../../projector/visit-sequences.ts';
import { Dim, parseCampaignKey, visitDimByFilter } from '../../vocabulary/dimensions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { ReportFilters } from '../../vocabulary/report-filters.ts';
import { iterateNarrowVisits, type NarrowVisitsRead, readLongestVisit, readValueTexts } from './queries/narrow-visit-rows.ts';
import type { RawVisit, RawVisitsInput } from './raw-visits.ts';

/**
 * Whether the narrow rows answer a read as of `maxSeq`: the upgrade's fills have finished and the rows are at that
 * position (the projector's: a paged report's earlier watermark is not).
 */
export function narrowVisitsAnswer(db: Db, maxSeq: number): boolean {
  return visitEventsReady(db) && readProjectorPosition(db) === maxSeq;
}

/** A site's visit filters as the value ids its rows keep; null when one matches no row (no value of it ever seen). */
function filterIdsOf(db: Db, siteId: string, filters: ReportFilters): NarrowVisitsRead['filters'] | null {
  const read: { column: NarrowVisitsRead['filters'][number]['column']; ids: number[] }[] = [];
  for (const [name, column] of Object.entries(attributeIdColumns)) {
    const values = filters[name as keyof typeof attributeIdColumns];
    if (!values) continue;
    const dim = visitDimByFilter[name as keyof typeof visitDimByFilter];
    const ids = values.map((value) => findValueId(db, siteId, dim, value)).filter((id) => id !== undefined);
    if (ids.length === 0) return null;
    read.push({ column, ids });
  }
  return read;
}

/** The entry's attribute names in the row's column order (narrowIdColumns, the campaign last). */
const attributeDims = [Dim.source, Dim.device, Dim.browser, Dim.os, Dim.country, Dim.region, Dim.city, Dim.campaign] as const;

/**
 * The visits overlapping the range (starting before its end, ending at or after its start), as streamRawVisits hands
 * them over, with `filters`' visit filters applied in SQL (each taker applies them again: harmless). Call inside one
 * snapshot, after narrowVisitsAnswer.
 */
export function streamNarrowVisits(db: Db, input: Omit<RawVisitsInput, 'visitors' | 'maxSeq'> & { filters: ReportFilters }, onVisit: (visit: RawVisit) => void): void {
  const startMs = input.fromDay * dayMs;
  const endMs = (input.toDay + 1) * dayMs;
  for (const siteId of input.siteIds) {
    const filters = filterIdsOf(db, siteId, input.filters);
    if (filters === null) continue;
    // A visit reaching into the range started at most its length before it: a day, or the site's longest visit.
    const lookbackMs = Math.max(dayMs, readLongestVisit(db, siteId));
    // The dictionaries first (the iteration holds the connection): every row refers to each of these dimensions.
    const dictionaries = new Map<number, Map<number, string>>([...attributeDims, Dim.type, Dim.path].map((dim) => [dim, readValueTexts(db, siteId, dim)]));
    const textOf = (dim: number, id: number): string => dictionaries.get(dim)!.get(id)!;
    const types: string[] = [];
    const paths: string[] = [];
    for (const [startTs, visitor, blob, ...ids] of iterateNarrowVisits(db, { site_id: siteId, start_ms: startMs - lookbackMs, end_ms: endMs, withInternal: input.withInternal, filters })) {
      const [source, device, browser, os, country, region, city, campaign] = ids.map((id, index) => (id === null ? null : textOf(attributeDims[index]!, id)));
      const [utmSource, utmMedium, utmCampaign] = campaign === null || campaign === undefined ? [null, null, null] : parseCampaignKey(campaign);
      const isInternal = (visitor % 2) as 0 | 1;
      const vid = Math.floor(visitor / 2);
      const anonId = `#${vid}`;
      const events: RawEventRow[] = [];
      let exit: RawEventRow | null = null;
      unpackVisitEvents(blob, startTs, (ts, seq, typeId, pathId, revenueMinor, revenueCurrency) => {
        const type = (types[typeId] ??= textOf(Dim.type, typeId));
        const event: RawEventRow = {
          seq,
          site_id: siteId,
          anon_id: anonId,
          is_internal: isInternal,
          ts,
          type,
          path: pathId < 0 ? null : (paths[pathId] ??= textOf(Dim.path, pathId)),
          query: null,
          source: source as string,
          utm_source: utmSource,
          utm_medium: utmMedium,
          utm_campaign: utmCampaign,
          device_type: device ?? null,
          browser: browser ?? null,
          os: os ?? null,
          country: country ?? null,
          region: region ?? null,
          city: city ?? null,
          revenue_minor: revenueMinor,
          revenue_currency: revenueCurrency,
        };
        events.push(event);
        if (type === 'pageview') exit = event;
      });
      const endTs = events[events.length - 1]!.ts;
      if (endTs < startMs) continue;
      onVisit({ site_id: siteId, anon_id: anonId, visitor_number: vid, is_internal: isInternal, events, start_ts: startTs, end_ts: endTs, entry: events[0]!, exit });
    }
  }
}
