// The goal questions of the read model's contract (contract.ts): goals-v2's figures and the goal filter on the
// report questions, computed by hand over the contract's fixture and a later day of site A.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import type { GoalFilter } from '../../src/vocabulary/goal-rule.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import type { ContractFixture } from './contract.ts';

const dayNumber = (date: string) => dayOf(Date.parse(`${date}T00:00:00.000Z`));

export function describeGoalQuestions(fixture: () => ContractFixture): void {
  describe('goal questions', () => {
    const day1 = '2026-03-02';
    // A later day of site A: g1 reads /docs, /docs/ and /docs/a in one visit; g2 only /docs; g3 signs up twice, once
    // on the pro plan (a string prop) with seats 3 (a number), once on the free plan; g4 reads /docs/b and leaves.
    const day16 = '2026-03-16';
    let siteA: ReadScope;
    let bothSites: ReadScope;
    const on = (scope: ReadScope, fromDay: number, toDay: number, extra: Partial<Selection> = {}): Selection => ({
      scope,
      range: { fromDay, toDay },
      filters: {},
      withInternal: false,
      ...extra,
    });
    const goal = (id: string, rule: GoalFilter['rule']): GoalFilter => ({ id, rule });
    const signupGoal = goal('signup', { kind: 'event', eventType: 'signup' });
    const pricingGoal = goal('pricing', { kind: 'pageview', path: '/pricing' });

    beforeAll(async () => {
      const { subject, event } = fixture();
      siteA = { siteIds: [subject.siteA], workspaceId: subject.workspaceId };
      bothSites = { siteIds: [subject.siteA, subject.siteB], workspaceId: subject.workspaceId };
      await subject.store(subject.siteA, [
        event(subject.siteA, 'g1', `${day16}T08:00:00.000Z`, 'pageview', '/docs'),
        event(subject.siteA, 'g1', `${day16}T08:01:00.000Z`, 'pageview', '/docs/'),
        event(subject.siteA, 'g1', `${day16}T08:02:00.000Z`, 'pageview', '/docs/a'),
        event(subject.siteA, 'g2', `${day16}T08:00:00.000Z`, 'pageview', '/docs'),
        event(subject.siteA, 'g3', `${day16}T09:00:00.000Z`, 'pageview', '/pricing'),
        event(subject.siteA, 'g3', `${day16}T09:01:00.000Z`, 'signup', '/pricing', { props: { plan: 'pro', seats: 3 } }),
        event(subject.siteA, 'g3', `${day16}T09:02:00.000Z`, 'signup', '/pricing', { props: { plan: 'free' } }),
        event(subject.siteA, 'g4', `${day16}T10:00:00.000Z`, 'pageview', '/docs/b'),
      ]);
    });

    it('counts a pageview goal\'s people and pageviews, and the rate\'s denominator, the selection\'s visitors', async () => {
      const day = dayNumber(day1);
      const answer = await fixture().subject.readModel.goals({ ...on(siteA, day, day), goals: [pricingGoal, signupGoal] });
      // v1 and v2 viewed /pricing; v1 signed up once; site A had two visitors that day.
      expect(answer.visitors).toBe(2);
      expect(answer.goals.map(({ id, visitors, conversions, revenue }) => ({ id, visitors, conversions, revenue: [...revenue] }))).toEqual([
        { id: 'pricing', visitors: 2, conversions: 2, revenue: [] },
        { id: 'signup', visitors: 1, conversions: 1, revenue: [] },
      ]);
      expect(answer.freshness.caughtUp).toBe(true);
    });

    it('matches /docs/* on /docs/ and below, never /docs itself', async () => {
      const day = dayNumber(day16);
      const answer = await fixture().subject.readModel.goals({ ...on(siteA, day, day), goals: [goal('docs', { kind: 'pageview', path: '/docs/*' }), goal('exact', { kind: 'pageview', path: '/docs' })] });
      expect(answer.visitors).toBe(4);
      expect(answer.goals.map(({ id, visitors, conversions }) => [id, visitors, conversions])).toEqual([
        ['docs', 2, 3],
        ['exact', 2, 2],
      ]);
    });

    it('matches props exactly, every listed key, numbers by their JSON text', async () => {
      const day = dayNumber(day16);
      const rules = [
        goal('pro', { kind: 'event', eventType: 'signup', props: { plan: 'pro' } }),
        goal('pro-3', { kind: 'event', eventType: 'signup', props: { plan: 'pro', seats: '3' } }),
        goal('pro-4', { kind: 'event', eventType: 'signup', props: { plan: 'pro', seats: '4' } }),
        goal('any', { kind: 'event', eventType: 'signup' }),
        goal('on-pricing', { kind: 'event', eventType: 'signup', path: '/pricing' }),
      ];
      const answer = await fixture().subject.readModel.goals({ ...on(siteA, day, day), goals: rules });
      expect(answer.goals.map(({ id, visitors, conversions }) => [id, visitors, conversions])).toEqual([
        ['pro', 1, 1],
        ['pro-3', 1, 1],
        ['pro-4', 0, 0],
        ['any', 1, 2],
        ['on-pricing', 1, 2],
      ]);
    });

    it('sums a goal\'s revenue exactly by currency, across the sites of a scope', async () => {
      const day = dayNumber(day1);
      const answer = await fixture().subject.readModel.goals({ ...on(bothSites, day, day), goals: [goal('buy', { kind: 'event', eventType: 'purchase' })] });
      expect(answer.visitors).toBe(3);
      expect(answer.goals.map(({ visitors, conversions, revenue }) => ({ visitors, conversions, revenue: [...revenue] }))).toEqual([{ visitors: 1, conversions: 1, revenue: [['EUR', 1250]] }]);
    });

    it('filters reports to the visits that converted on a goal, from raw events', async () => {
      const { readModel } = fixture().subject;
      const day = dayNumber(day1);
      const summary = await readModel.summary({ ...on(siteA, day, day, { filters: { goal: signupGoal } }), visitors: true });
      expect(summary.computedFrom).toBe('events');
      // Only v1's visit signed up: its two pageviews and the signup.
      expect({ visitors: summary.total.visitors, visits: summary.total.visits, pageviews: summary.total.pageviews, events: summary.total.events }).toEqual({ visitors: 1, visits: 1, pageviews: 2, events: 3 });
      const pages = await readModel.ranking({ ...on(siteA, day, day, { filters: { goal: signupGoal } }), by: 'path', order: 'pageviews', offset: 0, limit: 10 });
      expect(pages.rows.map((row) => [row.key, row.figures.pageviews, row.figures.visitors])).toEqual([['/', 1, 1], ['/pricing', 1, 1]]);
      // With a visit filter too: v2's mobile visit never signed up.
      const mobile = await readModel.summary({ ...on(siteA, day, day, { filters: { goal: signupGoal, device: ['mobile'] } }), visitors: true });
      expect(mobile.total.visits).toBe(0);
    });

    it('counts goals inside a goal-filtered selection: the denominator is the converted visits\' visitors', async () => {
      const day = dayNumber(day1);
      const answer = await fixture().subject.readModel.goals({ ...on(siteA, day, day, { filters: { goal: signupGoal } }), goals: [pricingGoal] });
      expect(answer.visitors).toBe(1);
      expect(answer.goals.map(({ visitors, conversions }) => [visitors, conversions])).toEqual([[1, 1]]);
    });
  });
}
