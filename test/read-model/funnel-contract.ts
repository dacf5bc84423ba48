// The funnel questions of the read model's contract (contract.ts): who did a funnel's steps, as typed columns, and
// what people did around their attempts, computed by hand over the contract's fixture. A person's key is the read
// model's own unless they are a user ('u:' + user_id), so the cases compare people by their events.
import { beforeAll, describe, expect, it } from 'vitest';
import type { FunnelPopulation, FunnelPopulationQuestion, FunnelStepCriteria } from '../../src/read-model/funnel-questions.ts';
import type { Answer, ReadScope } from '../../src/read-model/questions.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import type { ContractFixture } from './contract.ts';

const step = (type: string, path: string | null = null, props: FunnelStepCriteria['props'] = null): FunnelStepCriteria => ({ type, path, prefix: false, props });
const ms = (iso: string) => Date.parse(iso);

/** Each person's events as [ISO time, steps mask], people ordered by their first event. */
function eventsByPerson(answer: Answer<FunnelPopulation>): [string, number][][] {
  const { events, people } = answer;
  const persons = people.keys.map((_, person) =>
    Array.from(people.order.subarray(people.offsets[person]!, people.offsets[person + 1]!), (index) => [new Date(events.ts[index]!).toISOString(), events.steps[index]!] as [string, number]),
  );
  return persons.sort((a, b) => (a[0]![0] < b[0]![0] ? -1 : 1));
}

export function describeFunnelQuestions(fixture: () => ContractFixture): void {
  describe('funnel questions', () => {
    const { day1, day2 } = { day1: '2026-03-02', day2: '2026-03-03' };
    // A later day of site A: alice on two devices (merged through her user_id), and a step's props.
    const day10 = '2026-03-10';
    let siteAOnly: ReadScope;
    let bothSites: ReadScope;
    const question = (scope: ReadScope, steps: FunnelStepCriteria[], extra: Partial<FunnelPopulationQuestion> = {}): FunnelPopulationQuestion => ({
      scope,
      range: fixture().range,
      filters: {},
      withInternal: false,
      steps,
      afterRangeMs: 0,
      breakdown: null,
      maxEvents: 1000,
      withSeqs: false,
      ...extra,
    });

    beforeAll(async () => {
      const { subject, event } = fixture();
      siteAOnly = { siteIds: [subject.siteA], workspaceId: subject.workspaceId };
      bothSites = { siteIds: [subject.siteA, subject.siteB], workspaceId: subject.workspaceId };
      await subject.store(subject.siteA, [
        event(subject.siteA, 'w1', `${day10}T09:00:00.000Z`, 'pageview', '/', { user_id: 'alice' }),
        event(subject.siteA, 'w1', `${day10}T09:10:00.000Z`, 'plan_chosen', '/plans', { user_id: 'alice', props: { seats: 3, plan: 'team' } }),
        event(subject.siteA, 'w2', `${day10}T09:30:00.000Z`, 'signup', '/welcome', { user_id: 'alice' }),
      ]);
    });

    it('gives everyone who did the first step with every event of theirs that matches a step: / → /pricing → signup is v1 alone', async () => {
      const answer = await fixture().subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview', '/'), step('pageview', '/pricing'), step('signup')]));
      // v2 viewed /pricing only: never started, left out. The bot's / and v9's internal /admin are never read.
      expect(answer.overCap).toBe(false);
      expect(answer.people.keys).toHaveLength(1);
      expect(eventsByPerson(answer)).toEqual([
        [
          [`${day1}T10:00:00.000Z`, 0b001],
          [`${day1}T10:05:00.000Z`, 0b010],
          [`${day1}T10:06:00.000Z`, 0b100],
          [`${day2}T12:00:00.000Z`, 0b001],
        ],
      ]);
      expect(answer.events.seqs).toBeNull();
      expect(answer.asOf).toBe(answer.freshness.position);
      expect(answer.freshness.caughtUp).toBe(true);
      expect(answer.computedFrom).toBe('event_log');
    });

    it('starts with any pageview: v1 and v2 at step 1, v1 alone with the signup', async () => {
      const answer = await fixture().subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')]));
      expect(eventsByPerson(answer)).toEqual([
        [
          [`${day1}T10:00:00.000Z`, 0b01],
          [`${day1}T10:05:00.000Z`, 0b01],
          [`${day1}T10:06:00.000Z`, 0b10],
          [`${day2}T12:00:00.000Z`, 0b01],
        ],
        [[`${day1}T11:00:00.000Z`, 0b01]],
      ]);
    });

    it('applies the filters and the range to the first step only, and gives the breakdown of the events that may start', async () => {
      const mobile = await fixture().subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { filters: { device: ['mobile'] } }));
      // Only v2's iPhone pageview may start; v1's desktop pageviews keep no step.
      expect(eventsByPerson(mobile)).toEqual([[[`${day1}T11:00:00.000Z`, 0b01]]]);
      const dayTwo = await fixture().subject.readModel.funnelPopulation(
        question(siteAOnly, [step('pageview'), step('signup')], { range: { fromDay: dayOf(ms(`${day2}T00:00:00Z`)), toDay: dayOf(ms(`${day2}T00:00:00Z`)) } }),
      );
      expect(eventsByPerson(dayTwo)).toEqual([[[`${day2}T12:00:00.000Z`, 0b01]]]);
      const byDevice = await fixture().subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { breakdown: 'device' }));
      const startValues = byDevice.people.keys.map((_, person) => byDevice.events.breakdownValues[byDevice.people.order[byDevice.people.offsets[person]!]!]);
      expect(startValues.sort()).toEqual(['desktop', 'mobile']);
    });

    it('matches a step\'s props with ===: seats 3 is not seats "3"', async () => {
      const { readModel } = fixture().subject;
      const day = dayOf(ms(`${day10}T00:00:00Z`));
      const chosen = (props: FunnelStepCriteria['props']) =>
        readModel.funnelPopulation(question(siteAOnly, [step('plan_chosen', null, props), step('signup')], { range: { fromDay: day, toDay: day } }));
      const matching = await chosen({ seats: 3 });
      expect(matching.people.keys).toEqual(['u:alice']);
      expect(eventsByPerson(matching)).toEqual([
        [
          [`${day10}T09:10:00.000Z`, 0b01],
          [`${day10}T09:30:00.000Z`, 0b10],
        ],
      ]);
      expect((await chosen({ seats: 3, plan: 'team' })).people.keys).toEqual(['u:alice']);
      expect((await chosen({ seats: '3' })).people.keys).toEqual([]);
      expect((await chosen({ seats: 3, plan: 'pro' })).people.keys).toEqual([]);
    });

    it('reads a workspace\'s sites together, in (ts, seq) order with seqs: v3 views and buys on site B', async () => {
      const answer = await fixture().subject.readModel.funnelPopulation(question(bothSites, [step('pageview'), step('purchase')]));
      expect(answer.events.seqs).not.toBeNull();
      expect(eventsByPerson(answer)).toEqual([
        [
          [`${day1}T09:00:00.000Z`, 0b01],
          [`${day1}T09:01:00.000Z`, 0b10],
        ],
        [
          [`${day1}T10:00:00.000Z`, 0b01],
          [`${day1}T10:05:00.000Z`, 0b01],
          [`${day2}T12:00:00.000Z`, 0b01],
        ],
        [[`${day1}T11:00:00.000Z`, 0b01]],
      ]);
    });

    it('merges the devices of a user: alice\'s pageview and signup on two anon_ids are one person', async () => {
      const day = dayOf(ms(`${day10}T00:00:00Z`));
      const answer = await fixture().subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { range: { fromDay: day, toDay: day } }));
      expect(answer.people.keys).toEqual(['u:alice']);
      expect(answer.people.visitors[0]).toHaveLength(2);
      expect(eventsByPerson(answer)).toEqual([
        [
          [`${day10}T09:00:00.000Z`, 0b01],
          [`${day10}T09:30:00.000Z`, 0b10],
        ],
      ]);
    });

    it('reads at most maxEvents events: 5 match pageview → signup on site A, 4 is over the cap', async () => {
      const { readModel } = fixture().subject;
      const atCap = await readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { maxEvents: 5 }));
      expect(atCap.overCap).toBe(false);
      expect(atCap.events.ts).toHaveLength(5);
      const over = await readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { maxEvents: 4 }));
      expect(over.overCap).toBe(true);
      expect(over.people.keys).toEqual([]);
      expect(over.events.ts).toHaveLength(0);
    });

    it('answers as of an earlier position: exactly the events stored up to it', async () => {
      const { readModel } = fixture().subject;
      const all = await readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { withSeqs: true }));
      const seqs = Array.from(all.events.seqs!).sort((a, b) => a - b);
      // The position of v1's second pageview: the events stored after it are not read.
      const asOf = seqs[1]!;
      const earlier = await readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('signup')], { withSeqs: true, asOf }));
      expect(earlier.asOf).toBe(asOf);
      expect(Array.from(earlier.events.seqs!).sort((a, b) => a - b)).toEqual(seqs.slice(0, 2));
    });

    it('answers what people did around their attempts: the first step\'s context, the types in a span, the next event', async () => {
      const { subject } = fixture();
      const population = await subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview', '/'), step('pageview', '/pricing'), step('signup')], { withSeqs: true }));
      const { events, people } = population;
      const [first, pricing, signup, dayTwo] = Array.from(people.order, (index) => ({ ts: events.ts[index]!, seq: events.seqs![index]! }));
      const person = { key: people.keys[0]!, visitors: people.visitors[0]! };
      const ask = (endMs: number, attempts: Parameters<typeof subject.readModel.attempts>[0]['attempts']) =>
        subject.readModel.attempts({ scope: siteAOnly, asOf: population.asOf, withInternal: false, endMs, unnumbered: people.unnumbered, attempts });
      const rangeEnd = ms(`${day2}T00:00:00Z`) + 86_400_000;
      const answer = await ask(rangeEnd, [
        { person, contextOf: first! },
        { person, typesBetween: { after: first!, until: signup! } },
        // Without a seq, every event of until.ts is after the span; one ms later the signup is inside it.
        { person, typesBetween: { after: first!, until: { ts: signup!.ts + 1 } } },
        { person, nextAfter: signup! },
        { person, nextAfter: pricing!, typesBetween: { after: signup!, until: dayTwo! } },
      ]);
      expect(answer.attempts).toEqual([
        // v1's visit came from Google and entered on /.
        { context: { browser: 'Chrome', os: 'Windows', device: 'desktop', country: null, source: 'google.com', campaign: null, entryPath: '/' } },
        { types: ['pageview'] },
        { types: expect.arrayContaining(['pageview', 'signup']) },
        { next: { type: 'pageview', path: '/' } },
        { next: { type: 'signup', path: '/pricing' }, types: [] },
      ]);
      expect(answer.attempts[2]!.types).toHaveLength(2);
      // Nothing is read at or after endMs: day 2's pageview is past the end of day 1.
      const dayOne = await ask(ms(`${day2}T00:00:00Z`), [{ person, nextAfter: signup! }]);
      expect(dayOne.attempts).toEqual([{ next: null }]);
    });

    it('reads around the attempts of a user on every device bound to them', async () => {
      const { subject } = fixture();
      const day = dayOf(ms(`${day10}T00:00:00Z`));
      // The funnel reads alice's pageview only (on w1); her signup was on her other device, w2.
      const population = await subject.readModel.funnelPopulation(question(siteAOnly, [step('pageview'), step('purchase')], { range: { fromDay: day, toDay: day }, withSeqs: true }));
      const { events, people } = population;
      expect(people.keys).toEqual(['u:alice']);
      expect(people.visitors[0]).toHaveLength(1);
      const start = { ts: events.ts[people.order[0]!]!, seq: events.seqs![people.order[0]!]! };
      const endMs = (day + 1) * 86_400_000;
      const answer = await subject.readModel.attempts({
        scope: siteAOnly,
        asOf: population.asOf,
        withInternal: false,
        endMs,
        unnumbered: people.unnumbered,
        attempts: [{ person: { key: 'u:alice', visitors: people.visitors[0]! }, nextAfter: start, typesBetween: { after: start, until: { ts: endMs } } }],
      });
      expect(answer.attempts).toEqual([{ next: { type: 'plan_chosen', path: '/plans' }, types: expect.arrayContaining(['plan_chosen', 'signup']) }]);
      expect(answer.attempts[0]!.types).toHaveLength(2);
    });
  });
}
