// The page sequences of the visits journeys and page flow count: the visits that start in the range and pass the
// filters, each as its pageview paths in time order with consecutive repeats collapsed (CONTRACT section 10). The
// visits are cut from the event log (CONTRACT section 4: a 30-minute gap ends one) rather than read from the stored
// visits, whose table has no index by time: one scan of the range through (site_id, ts) does it, starting 30
// minutes before the range (a visit whose first event in the scan is later than that truly starts there) and ending a
// day after it (a visit still going then is followed through the visitor index).
// When the question allows it (no goal filter) and the upgrade's fills have finished, the projector's
// visit_sequences table answers instead (readStoredVisitSequences): one narrow row per visit with a pageview, its
// visit filters' values as value ids, kept equal to this computation (src/projector/visit-sequences.ts).
import type { Db } from '../../db/open.ts';
import { listVisitorWindowEvents } from '../../projector/queries/visitor-events.ts';
import { listAnonIdsOfVisitorNumbers } from '../../projector/queries/visitor-number-rows.ts';
import { attributeIdColumns, listPathTexts, readVisitSequencesText, type VisitSequencesRead } from '../../projector/queries/visit-sequence-rows.ts';
import { findValueId } from '../../projector/queries/value-rows.ts';
import { packPages, visitAttributesReady, visitSequencesReady } from '../../projector/visit-sequences.ts';
import { Dim, visitDimByFilter } from '../../vocabulary/dimensions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { visitFilterColumns } from '../../vocabulary/report-filters.ts';
import { sessionGapMs } from '../../vocabulary/visit-rule.ts';
import type { Selection } from '../questions.ts';
import { flagSpan, internalFlag, passesFlag, readVisitPageRows, type VisitPageScan } from './queries/visit-page-rows.ts';

/** The visits, each a visitor and its collapsed sequence of path ids (indexes into `paths`). */
export interface VisitSequences {
  paths: string[];
  /** Visit i's visitor number (one anon_id; shared by the sites of a workspace). */
  visitors: number[];
  sequences: number[][];
}

/** The events of a visitor after the scan's end, as rows of the scan would hold them. */
interface LaterEvents {
  ts: number[];
  paths: (string | null)[];
}

function filtersOf(selection: Selection): VisitPageScan['filters'] {
  const filters: { column: VisitPageScan['filters'][number]['column']; values: readonly string[] }[] = [];
  for (const [name, column] of Object.entries(visitFilterColumns)) {
    const values = selection.filters[name as keyof typeof visitFilterColumns];
    if (values) filters.push({ column, values });
  }
  return filters;
}

/** A visit still going at the scan's end (rare: a day of activity without a 30-minute gap): its later events. */
function followVisitor(db: Db, siteId: string, anonId: string, lastTs: number, scanEndMs: number, maxSeq: number, internal: number): LaterEvents {
  const later: LaterEvents = { ts: [], paths: [] };
  for (let highest = scanEndMs, last = lastTs; last + sessionGapMs > highest; ) {
    const end = last + sessionGapMs;
    const rows = listVisitorWindowEvents(db, { site_id: siteId, anon_id: anonId, start_ms: highest, end_ms: end, with_internal: internal, max_seq: maxSeq })
      .filter((row) => row.is_internal === internal)
      .sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    highest = end;
    if (rows.length === 0) break;
    for (const row of rows) {
      later.ts.push(row.ts);
      later.paths.push(row.type === 'pageview' ? row.path : null);
    }
    last = rows[rows.length - 1]!.ts;
  }
  return later;
}

/**
 * Row indexes grouped by visitor (vid and traffic kind), each group in scan order: `order[offsets[g]]` to
 * `order[offsets[g + 1] - 1]`. A counting sort over dense group numbers: no array per visitor.
 */
function groupByVisitor(visitorAndFlags: readonly number[]): { keys: number[]; offsets: Int32Array; order: Int32Array } {
  const groupOf = new Map<number, number>();
  const keys: number[] = [];
  const groups = new Int32Array(visitorAndFlags.length);
  for (let row = 0; row < visitorAndFlags.length; row++) {
    const value = visitorAndFlags[row]!;
    // Internal traffic has visits of its own: the key is vid × 2 + internal.
    const key = Math.floor(value / flagSpan) * 2 + (value & internalFlag ? 1 : 0);
    let group = groupOf.get(key);
    if (group === undefined) {
      group = keys.length;
      groupOf.set(key, group);
      keys.push(key);
    }
    groups[row] = group;
  }
  const offsets = new Int32Array(keys.length + 1);
  for (const group of groups) offsets[group + 1]!++;
  for (let group = 0; group < keys.length; group++) offsets[group + 1]! += offsets[group]!;
  const next = offsets.slice(0, keys.length);
  const order = new Int32Array(visitorAndFlags.length);
  for (let row = 0; row < groups.length; row++) order[next[groups[row]!]!++] = row;
  return { keys, offsets, order };
}

/**
 * Every visit of the scope that starts in the range, passes the visit filters (its first event's values) and the
 * path filter (a pageview of one of the paths), and has a pageview. Call inside one snapshot.
 * @example readVisitSequences(db, selection, 120).sequences.length
 */
export function readVisitSequences(db: Db, selection: Selection, maxSeq: number): VisitSequences {
  const startMs = selection.range.fromDay * dayMs;
  const endMs = (selection.range.toDay + 1) * dayMs;
  const scanStartMs = startMs - sessionGapMs;
  const scanEndMs = endMs + dayMs;
  const pathIds = new Map<string, number>();
  const result: VisitSequences = { paths: [], visitors: [], sequences: [] };
  const pathFilter = selection.filters.path ? new Set(selection.filters.path) : null;
  const idOf = (path: string) => {
    let id = pathIds.get(path);
    if (id === undefined) {
      id = result.paths.length;
      pathIds.set(path, id);
      result.paths.push(path);
    }
    return id;
  };
  const filters = filtersOf(selection);
  for (const siteId of selection.scope.siteIds) {
    const rows = readVisitPageRows(db, { site_id: siteId, start_ms: scanStartMs, end_ms: scanEndMs, max_seq: maxSeq, with_internal: selection.withInternal ? 1 : 0, filters });
    const { keys, offsets, order } = groupByVisitor(rows.visitorAndFlags);
    const lastTsOf = (group: number) => rows.ts[order[offsets[group + 1]! - 1]!]! + scanStartMs;
    // Visits still going at the scan's end are followed (their visitors' anon_ids looked up together).
    const following = keys.map((_, group) => group).filter((group) => lastTsOf(group) + sessionGapMs > scanEndMs);
    const anonIds = following.length > 0 ? listAnonIdsOfVisitorNumbers(db, [siteId], following.map((group) => Math.floor(keys[group]! / 2))) : new Map<number, string>();
    keys.forEach((key, group) => {
      const vid = Math.floor(key / 2);
      const first = offsets[group]!;
      const count = offsets[group + 1]! - first;
      const lastTs = lastTsOf(group);
      const later = lastTs + sessionGapMs > scanEndMs ? followVisitor(db, siteId, anonIds.get(vid)!, lastTs, scanEndMs, maxSeq, key % 2) : { ts: [], paths: [] };
      const total = count + later.ts.length;
      const tsOf = (index: number) => (index < count ? rows.ts[order[first + index]!]! + scanStartMs : later.ts[index - count]!);
      const pathOf = (index: number) => (index < count ? (rows.paths[order[first + index]!] ?? null) : later.paths[index - count]!);
      let visitStart = 0;
      for (let index = 1; index <= total; index++) {
        if (index < total && tsOf(index) - tsOf(index - 1) < sessionGapMs) continue;
        // The visit is events [visitStart, index); a later event is never its first (the scan ends a day after the range).
        const firstTs = tsOf(visitStart);
        const passes = (rows.visitorAndFlags[order[first + visitStart]!]! & passesFlag) !== 0;
        if (visitStart < count && firstTs >= startMs && firstTs < endMs && passes) {
          const sequence: number[] = [];
          let passesPath = pathFilter === null;
          for (let event = visitStart; event < index; event++) {
            const path = pathOf(event);
            if (path === null) continue;
            if (!passesPath && pathFilter!.has(path)) passesPath = true;
            const id = idOf(path);
            if (sequence[sequence.length - 1] !== id) sequence.push(id);
          }
          if (sequence.length > 0 && passesPath) {
            result.visitors.push(vid);
            result.sequences.push(sequence);
          }
        }
        visitStart = index;
      }
    });
  }
  return result;
}

/** Whether the stored page sequences can answer: no goal filter, and the upgrade's fills done (of 31 for a visit filter). */
export function storedSequencesAnswer(db: Db, selection: Selection): boolean {
  const { path, goal, ...visitFilters } = selection.filters;
  if (goal) return false;
  if (Object.values(visitFilters).some((values) => values !== undefined)) return visitAttributesReady(db);
  return visitSequencesReady(db);
}

/**
 * A site's visit filters as the value ids its rows keep; null when a filter matches no row of the site (none of its
 * values was ever seen there: the dictionary holds every value a stored row refers to).
 */
function storedFiltersOf(db: Db, siteId: string, selection: Selection): VisitSequencesRead['filters'] | null {
  const filters: { column: (typeof attributeIdColumns)[keyof typeof attributeIdColumns]; ids: number[] }[] = [];
  for (const [name, column] of Object.entries(attributeIdColumns)) {
    const values = selection.filters[name as keyof typeof attributeIdColumns];
    if (!values) continue;
    const dim = visitDimByFilter[name as keyof typeof visitDimByFilter];
    const ids = values.map((value) => findValueId(db, siteId, dim, value)).filter((id) => id !== undefined);
    if (ids.length === 0) return null;
    filters.push({ column, ids });
  }
  return filters;
}

/** A hex digit's value (upper case, as SQLite's hex() writes them). */
const hexDigit = (code: number) => (code <= 57 ? code - 48 : code - 55);

/**
 * readVisitSequences's answer from the stored page sequences (see storedSequencesAnswer). Call inside one snapshot:
 * the table is at the projector's position there. The range arrives as one text (readVisitSequencesText) decoded
 * here: the packed path ids (unsigned LEB128) read straight from the hex; each site's path ids map to dense ids of
 * the answer. With `needed` (a journey's anchor, page flow's page), the answer may leave out visits without that
 * path, which the question does not count anyway: SQL passes on only the rows holding its id's bytes.
 * @example readStoredVisitSequences(db, selection).sequences.length
 */
export function readStoredVisitSequences(db: Db, selection: Selection, needed?: string): VisitSequences {
  const startMs = selection.range.fromDay * dayMs;
  const endMs = (selection.range.toDay + 1) * dayMs;
  const result: VisitSequences = { paths: [], visitors: [], sequences: [] };
  // The answer's ids are given at first sight, in one pass; the texts are read after it (the path dictionary is per
  // site, so with several sites a text seen on two is made one id again at the end).
  const textIds = new Map<string, number>();
  let seenTwice = false;
  for (const siteId of selection.scope.siteIds) {
    let needle: Buffer | undefined;
    if (needed !== undefined) {
      const neededId = findValueId(db, siteId, Dim.path, needed);
      if (neededId === undefined) continue;
      needle = packPages([neededId]);
    }
    const filters = storedFiltersOf(db, siteId, selection);
    if (filters === null) continue;
    const text = readVisitSequencesText(db, { site_id: siteId, start_ms: startMs, end_ms: endMs, needle, filters });
    // The site's path ids → the answer's (-1: not seen yet).
    let local = new Int32Array(256).fill(-1);
    const used: number[] = [];
    for (let at = 0; at < text.length; ) {
      let visitor = 0;
      for (let code = text.charCodeAt(at++); code !== 32; code = text.charCodeAt(at++)) visitor = visitor * 10 + code - 48;
      if (!selection.withInternal && visitor % 2 === 1) {
        while (at < text.length && text.charCodeAt(at) !== 32) at++;
        at++;
        continue;
      }
      const pages: number[] = [];
      let value = 0;
      let scale = 1;
      for (; at < text.length && text.charCodeAt(at) !== 32; at += 2) {
        const byte = hexDigit(text.charCodeAt(at)) * 16 + hexDigit(text.charCodeAt(at + 1));
        value += (byte & 0x7f) * scale;
        if (byte & 0x80) {
          scale *= 0x80;
          continue;
        }
        if (value >= local.length) {
          const grown = new Int32Array(Math.max(value + 1, local.length * 2)).fill(-1);
          grown.set(local);
          local = grown;
        }
        let id = local[value]!;
        if (id === -1) {
          id = local[value] = result.paths.length;
          result.paths.push('');
          used.push(value);
        }
        pages.push(id);
        value = 0;
        scale = 1;
      }
      at++;
      result.visitors.push(Math.floor(visitor / 2));
      result.sequences.push(pages);
    }
    for (const [pathId, path] of listPathTexts(db, siteId, used)) {
      const id = local[pathId]!;
      result.paths[id] = path;
      if (textIds.has(path)) seenTwice = true;
      else textIds.set(path, id);
    }
  }
  if (seenTwice) {
    // One id per text: each id → the first id of its text.
    const firstId = result.paths.map((path) => textIds.get(path)!);
    for (const pages of result.sequences) for (let index = 0; index < pages.length; index++) pages[index] = firstId[pages[index]!]!;
  }
  if (!selection.filters.path) return result;
  const wanted = new Set(selection.filters.path.map((path) => textIds.get(path)).filter((id) => id !== undefined));
  const kept: VisitSequences = { paths: result.paths, visitors: [], sequences: [] };
  result.sequences.forEach((pages, visit) => {
    if (!pages.some((id) => wanted.has(id))) return;
    kept.visitors.push(result.visitors[visit]!);
    kept.sequences.push(pages);
  });
  return kept;
}
