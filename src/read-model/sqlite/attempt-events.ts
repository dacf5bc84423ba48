// What the panels of an execution (correlation, explanation) read beyond the funnel's own step events, person by
// person and only for the people they ask about: the context of an attempt's first event, the event types of an
// attempt and the next event after a step. A person's events are read through the projector's visitor index, one
// (site, anon_id) at a time, never by reading every event of the range: on a busy month that is hundreds of thousands
// of rows for a few thousand people.
import type { Db } from '../../db/open.ts';
import { findVisitorFirstInSpan, listVisitorSpanTypes, type VisitorNextEventRow, type VisitorSpanParams } from '../../projector/queries/visitor-events.ts';
import { listUserAnonIds } from '../../projector/queries/user-anon-ids.ts';
import type { AttemptAnswer, AttemptsQuestion, EventAt, EventContext, PopulationPerson } from '../funnel-questions.ts';
import { anonIdsOfVisitors } from './funnel-population.ts';
import { resolvePersons } from './persons.ts';
import { readFunnelEventDetails } from './queries/funnel-events.ts';
import { findVisitOfEvent } from './queries/visit-of-event.ts';

const untilEveryEvent = Number.MAX_SAFE_INTEGER;

/**
 * Every attempt's answer, in the question's order. Call inside one snapshot; `projectedSeq` is the projector's
 * position read in it (bindings are taken back from it to the watermark).
 * @example readAttempts(db, question, projectedSeq)[0].next // { type: 'pageview', path: '/pricing' }
 */
export function readAttempts(db: Db, question: AttemptsQuestion, projectedSeq: number): AttemptAnswer[] {
  const anonIdsOf = anonIdsOfPeople(db, question, projectedSeq);
  const spans = (person: PopulationPerson, after: EventAt, untilTs: number, untilSeq: number): VisitorSpanParams[] => {
    const params: VisitorSpanParams[] = [];
    for (const anonId of anonIdsOf.get(person.key) ?? []) {
      for (const siteId of question.scope.siteIds) {
        params.push({
          site_id: siteId,
          anon_id: anonId,
          after_ts: after.ts,
          after_seq: after.seq,
          until_ts: untilTs,
          until_seq: untilSeq,
          with_internal: question.withInternal ? 1 : 0,
          max_seq: question.asOf,
        });
      }
    }
    return params;
  };
  const { endMs } = question;
  return question.attempts.map((attempt) => {
    const answer: AttemptAnswer = {};
    if (attempt.contextOf) answer.context = contextOf(db, attempt.contextOf, question.asOf);
    if (attempt.typesBetween) {
      const { after, until } = attempt.typesBetween;
      const types = new Set<string>();
      // Never past the events the execution read ([start, end) of the range).
      const [untilTs, untilSeq] = until.ts >= endMs ? [endMs - 1, untilEveryEvent] : [until.ts, until.seq ?? untilEveryEvent];
      for (const params of spans(attempt.person, after, untilTs, untilSeq)) for (const type of listVisitorSpanTypes(db, params)) types.add(type);
      answer.types = [...types];
    }
    if (attempt.nextAfter) {
      let first: VisitorNextEventRow | undefined;
      for (const params of spans(attempt.person, attempt.nextAfter, endMs - 1, untilEveryEvent)) {
        const event = findVisitorFirstInSpan(db, params);
        if (event && (!first || event.ts < first.ts || (event.ts === first.ts && event.seq < first.seq))) first = event;
      }
      answer.next = first ? { type: first.type, path: first.path } : null;
    }
    return answer;
  });
}

/**
 * The event's device and place, and the acquisition of the visit holding it: a visit whose entry the execution does
 * not count (a late event past the watermark) falls back to the event's own values.
 */
function contextOf(db: Db, event: EventAt, watermarkSeq: number): EventContext {
  const details = readFunnelEventDetails(db, event.seq);
  if (!details) throw new Error(`event ${event.seq} of the population is gone from the snapshot`);
  const visit = findVisitOfEvent(db, { site_id: details.site_id, anon_id: details.anon_id, is_internal: details.is_internal, ts: event.ts });
  const fromVisit = visit !== undefined && visit.entry_seq <= watermarkSeq;
  return {
    browser: details.browser,
    os: details.os,
    device: details.device_type,
    country: details.country,
    source: fromVisit ? visit.source : details.source,
    campaign: fromVisit ? visit.utm_campaign : details.utm_campaign,
    entryPath: fromVisit ? visit.entry_path : details.path,
  };
}

/**
 * Each person's anon_ids as of the watermark: an unbound person is their one anon_id; a user is every anon_id bound to
 * them (on any site of the scope: a binding holds on all of them) that resolves back to them, including devices
 * that did none of the funnel's steps.
 */
function anonIdsOfPeople(db: Db, question: AttemptsQuestion, projectedSeq: number): Map<string, string[]> {
  const { siteIds } = question.scope;
  const people = new Map<string, PopulationPerson>();
  for (const { person } of question.attempts) people.set(person.key, person);
  const anonIdOfKey = anonIdsOfVisitors(db, siteIds, question.unnumbered, [...new Set([...people.values()].flatMap((person) => person.visitors))]);
  const anonIds = new Map<string, string[]>();
  const otherDevices = new Set<string>();
  for (const person of people.values()) {
    anonIds.set(person.key, person.visitors.map((key) => anonIdOfKey.get(key)!));
    if (!person.key.startsWith('u:')) continue;
    const userId = person.key.slice(2);
    for (const siteId of siteIds) for (const anonId of listUserAnonIds(db, { site_id: siteId, user_id: userId })) otherDevices.add(anonId);
  }
  const personOf = resolvePersons(db, siteIds, question.asOf, projectedSeq, [...otherDevices]);
  for (const anonId of otherDevices) {
    const list = anonIds.get(personOf(anonId));
    if (list && !list.includes(anonId)) list.push(anonId);
  }
  return anonIds;
}
