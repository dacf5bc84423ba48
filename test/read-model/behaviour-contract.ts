// The behaviour questions of the read model's contract (contract.ts): journeys, page flow and retention over a
// fixture of site B in January and February 2026 (no other family stores events there), computed by hand below.
import { beforeAll, describe, expect, it } from 'vitest';
import type { JourneysQuestion, RetentionQuestion } from '../../src/read-model/behaviour-questions.ts';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import { dayOf, toDateText } from '../../src/vocabulary/periods.ts';
import type { ContractFixture } from './contract.ts';

const dayNumber = (text: string) => dayOf(Date.parse(`${text}T00:00:00Z`));
const days = (from: string, to: string) => ({ fromDay: dayNumber(from), toDay: dayNumber(to) });

/**
 * Site B, visits by anon_id (sequence = pageview paths in time order, consecutive repeats collapsed):
 * - j10: 2026-01-04 23:59 /f, 2026-01-05 00:05 /g — one visit, started the day before the week of 5 January.
 * - j1: 01-05 10:00 / → /a → /a → /b → /c  [/, /a, /b, /c]; comes back 01-27 (/).
 * - j2: 01-06 09:00 / → /a → (click on /a) → /c  [/, /a, /c]; 01-06 12:00 / alone; 01-07 15:00 / alone.
 * - j3: 01-07 / → /a → /b.   j4: 01-08 /b alone.   j8: 01-09 /a → /b → /a  [/a, /b, /a].
 * - j5: 01-06 / → /x as internal traffic.
 * - j9: 01-11 23:50 /d, 01-12 00:10 /e — one visit across midnight, started on the range's last day.
 * - carol: 01-31 23:59:59.999 / on device j6, 02-01 00:00 /a on device j7, 02-02 / on j7 (one person by user_id).
 * - j11: from 02-15 23:00 a pageview every 25 minutes, /loop-0, /loop-1, … /loop-0, until 02-17 01:10 (/end): one
 *   visit of 27 hours, still going more than a day after the range of 15 February ends.
 */
const janWeek = '2026-01-05';
const janWeekEnd = '2026-01-11';

export function describeBehaviourQuestions(fixture: () => ContractFixture): void {
  describe('behaviour questions', () => {
    let siteB: ReadScope;
    const selection = (extra: Partial<Selection> = {}): Selection => ({ scope: siteB, range: days(janWeek, janWeekEnd), filters: {}, withInternal: false, ...extra });
    const journeys = (extra: Partial<JourneysQuestion> = {}) => fixture().subject.readModel.journeys({ ...selection(), anchor: null, steps: 3, limit: 50, ...extra });
    const retention = (from: string, to: string, period: RetentionQuestion['period'], extra: Partial<RetentionQuestion> = {}) =>
      fixture().subject.readModel.retention({ scope: siteB, range: days(from, to), withInternal: false, period, ...extra });
    const shownCohorts = (cohorts: { startDay: number; size: number; returning: number[] }[]) => cohorts.map((cohort) => [toDateText(cohort.startDay), cohort.size, cohort.returning]);

    beforeAll(async () => {
      const { subject, event } = fixture();
      const b = subject.siteB;
      siteB = { siteIds: [b], workspaceId: subject.workspaceId };
      await subject.store(b, [
        event(b, 'j10', '2026-01-04T23:59:00.000Z', 'pageview', '/f'),
        event(b, 'j10', '2026-01-05T00:05:00.000Z', 'pageview', '/g'),
        event(b, 'j1', '2026-01-05T10:00:00.000Z', 'pageview', '/'),
        event(b, 'j1', '2026-01-05T10:01:00.000Z', 'pageview', '/a'),
        event(b, 'j1', '2026-01-05T10:02:00.000Z', 'pageview', '/a'),
        event(b, 'j1', '2026-01-05T10:03:00.000Z', 'pageview', '/b'),
        event(b, 'j1', '2026-01-05T10:04:00.000Z', 'pageview', '/c'),
        event(b, 'j1', '2026-01-27T08:00:00.000Z', 'pageview', '/'),
        event(b, 'j2', '2026-01-06T09:00:00.000Z', 'pageview', '/'),
        event(b, 'j2', '2026-01-06T09:05:00.000Z', 'pageview', '/a'),
        event(b, 'j2', '2026-01-06T09:06:00.000Z', 'click', '/a'),
        event(b, 'j2', '2026-01-06T09:10:00.000Z', 'pageview', '/c'),
        event(b, 'j2', '2026-01-06T12:00:00.000Z', 'pageview', '/'),
        event(b, 'j2', '2026-01-07T15:00:00.000Z', 'pageview', '/'),
        event(b, 'j3', '2026-01-07T10:00:00.000Z', 'pageview', '/'),
        event(b, 'j3', '2026-01-07T10:01:00.000Z', 'pageview', '/a'),
        event(b, 'j3', '2026-01-07T10:02:00.000Z', 'pageview', '/b'),
        event(b, 'j4', '2026-01-08T10:00:00.000Z', 'pageview', '/b'),
        event(b, 'j8', '2026-01-09T10:00:00.000Z', 'pageview', '/a'),
        event(b, 'j8', '2026-01-09T10:01:00.000Z', 'pageview', '/b'),
        event(b, 'j8', '2026-01-09T10:02:00.000Z', 'pageview', '/a'),
        event(b, 'j5', '2026-01-06T10:00:00.000Z', 'pageview', '/', { internal: true }),
        event(b, 'j5', '2026-01-06T10:01:00.000Z', 'pageview', '/x', { internal: true }),
        event(b, 'j9', '2026-01-11T23:50:00.000Z', 'pageview', '/d'),
        event(b, 'j9', '2026-01-12T00:10:00.000Z', 'pageview', '/e'),
        event(b, 'j6', '2026-01-31T23:59:59.999Z', 'pageview', '/', { user_id: 'carol' }),
        event(b, 'j7', '2026-02-01T00:00:00.000Z', 'pageview', '/a', { user_id: 'carol' }),
        event(b, 'j7', '2026-02-02T09:00:00.000Z', 'pageview', '/'),
        ...Array.from({ length: 64 }, (_, index) =>
          event(b, 'j11', new Date(Date.parse('2026-02-15T23:00:00.000Z') + index * 25 * 60_000).toISOString(), 'pageview', index === 63 ? '/end' : `/loop-${index % 2}`),
        ),
      ]);
    });

    it('ranks journeys from the entry page: most visits, then most visitors, then steps in path order (a shorter prefix first)', async () => {
      const answer = await journeys();
      expect(answer.paths).toEqual([
        { steps: ['/', '/a', '/b'], visitors: 2, visits: 2 },
        // j2's two one-page visits: as many visits, fewer visitors.
        { steps: ['/'], visitors: 1, visits: 2 },
        { steps: ['/', '/a', '/c'], visitors: 1, visits: 1 },
        { steps: ['/a', '/b', '/a'], visitors: 1, visits: 1 },
        { steps: ['/b'], visitors: 1, visits: 1 },
        // Started on the range's last day, ended the next: counted, whole. j10's visit started the day before: not.
        { steps: ['/d', '/e'], visitors: 1, visits: 1 },
      ]);
      expect(answer.freshness.caughtUp).toBe(true);
      expect(answer.computedFrom).toBe('event_log');
      expect((await journeys({ limit: 1 })).paths).toEqual([{ steps: ['/', '/a', '/b'], visitors: 2, visits: 2 }]);
    });

    it('anchors journeys at a start path (its first pageview) or an end path (its last), with shorter visits counted as they are', async () => {
      expect((await journeys({ anchor: { at: 'start', path: '/a' }, steps: 2 })).paths).toEqual([
        { steps: ['/a', '/b'], visitors: 3, visits: 3 },
        { steps: ['/a', '/c'], visitors: 1, visits: 1 },
      ]);
      expect((await journeys({ anchor: { at: 'end', path: '/c' }, steps: 6 })).paths).toEqual([
        { steps: ['/', '/a', '/b', '/c'], visitors: 1, visits: 1 },
        { steps: ['/', '/a', '/c'], visitors: 1, visits: 1 },
      ]);
      // j8's last /a is its third page: the two before it.
      expect((await journeys({ anchor: { at: 'end', path: '/a' }, steps: 2 })).paths).toEqual([
        { steps: ['/', '/a'], visitors: 3, visits: 3 },
        { steps: ['/b', '/a'], visitors: 1, visits: 1 },
      ]);
      expect((await journeys({ anchor: { at: 'start', path: '/nowhere' } })).paths).toEqual([]);
    });

    it('follows a visit that goes on more than a day after the range, to its last page', async () => {
      const range = days('2026-02-15', '2026-02-15');
      expect((await journeys({ range, anchor: { at: 'end', path: '/end' }, steps: 2 })).paths).toEqual([{ steps: ['/loop-0', '/end'], visitors: 1, visits: 1 }]);
      expect((await journeys({ range: days('2026-02-16', '2026-02-17') })).paths).toEqual([]);
    });

    it('applies the filters: path keeps the visits with a pageview of it, internal traffic adds its own visits', async () => {
      expect((await journeys({ filters: { path: ['/c'] } })).paths).toEqual([
        { steps: ['/', '/a', '/b'], visitors: 1, visits: 1 },
        { steps: ['/', '/a', '/c'], visitors: 1, visits: 1 },
      ]);
      expect((await journeys({ filters: { device: ['mobile'] } })).paths).toEqual([]);
      expect((await journeys({ filters: { device: ['desktop'] }, withInternal: true, anchor: { at: 'end', path: '/x' } })).paths).toEqual([
        { steps: ['/', '/x'], visitors: 1, visits: 1 },
      ]);
    });

    it('gives the flow of a page: the pages just before and after it, each visit once per page, and its exits', async () => {
      const answer = await fixture().subject.readModel.pageFlow({ ...selection(), path: '/a', limit: 50 });
      expect({ previous: answer.previous, next: answer.next, exits: answer.exits }).toEqual({
        previous: [
          { path: '/', visits: 3 },
          { path: '/b', visits: 1 },
        ],
        next: [
          { path: '/b', visits: 3 },
          { path: '/c', visits: 1 },
        ],
        exits: 1,
      });
      const limited = await fixture().subject.readModel.pageFlow({ ...selection(), path: '/a', limit: 1 });
      expect([limited.previous, limited.next]).toEqual([[{ path: '/', visits: 3 }], [{ path: '/b', visits: 3 }]]);
      const lone = await fixture().subject.readModel.pageFlow({ ...selection(), path: '/b', limit: 50 });
      // j4's one-page visit is an exit with neither side; j3's /b is its last page too.
      expect({ previous: lone.previous, next: lone.next, exits: lone.exits }).toEqual({ previous: [{ path: '/a', visits: 3 }], next: [{ path: '/a', visits: 1 }, { path: '/c', visits: 1 }], exits: 2 });
    });

    it('counts weekly cohorts by first visit (ISO weeks, Monday UTC), people seen before the range in none', async () => {
      const answer = await retention(janWeek, '2026-02-08', 'week');
      // j10 was first seen on 4 January: no cohort. j9 crossed midnight into the next week; j1 came back on the 27th.
      expect(shownCohorts(answer.cohorts)).toEqual([
        ['2026-01-05', 6, [1, 0, 1, 0]],
        ['2026-01-12', 0, [0, 0, 0]],
        ['2026-01-19', 0, [0, 0]],
        ['2026-01-26', 1, [1]],
        ['2026-02-02', 0, []],
      ]);
      expect(answer.computedFrom).toBe('rollups');
      // A range starting on a Sunday: its first cohort is that whole ISO week's (from 29 December), cut to the range.
      expect(shownCohorts((await retention('2026-01-04', '2026-01-11', 'week')).cohorts)).toEqual([
        ['2025-12-29', 1, [1]],
        ['2026-01-05', 6, []],
      ]);
      expect(shownCohorts((await retention(janWeek, janWeekEnd, 'week', { withInternal: true })).cohorts)).toEqual([['2026-01-05', 7, []]]);
    });

    it('counts monthly cohorts of people, a person on two devices once: carol is January\'s and comes back in February', async () => {
      expect(shownCohorts((await retention('2026-01-01', '2026-02-28', 'month')).cohorts)).toEqual([
        ['2026-01-01', 8, [1]],
        // j11, first seen in February.
        ['2026-02-01', 1, []],
      ]);
    });
  });
}
