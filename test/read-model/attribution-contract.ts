// The attribution questions of the read model's contract (contract.ts): purchases of time ranges with the person who
// converted and the visits that led to it, computed by hand over the contract's fixture and a later day of site B.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConversionRange } from '../../src/read-model/attribution-questions.ts';
import type { ReadScope } from '../../src/read-model/questions.ts';
import type { ContractFixture } from './contract.ts';

const ms = (iso: string) => Date.parse(iso);
const lookbackMs = 30 * 86_400_000;

export function describeAttributionQuestions(fixture: () => ContractFixture): void {
  describe('attribution questions', () => {
    const day1 = '2026-03-02';
    // A later day of site B: bob visits from an ad on one device (w5), directly on another (w4), and buys there.
    const day11 = '2026-03-11';
    let bothSites: ReadScope;
    let purchaseId: string;
    const days = (from: string, to: string): ConversionRange => ({ startMs: ms(`${from}T00:00:00.000Z`), endMs: ms(`${to}T23:59:59.999Z`), eventId: null });

    beforeAll(async () => {
      const { subject, event } = fixture();
      bothSites = { siteIds: [subject.siteA, subject.siteB], workspaceId: subject.workspaceId };
      purchaseId = fixture().purchaseId;
      await subject.store(subject.siteB, [
        event(subject.siteB, 'w5', `${day11}T08:00:00.000Z`, 'pageview', '/?utm_source=ads&utm_medium=cpc&utm_campaign=fall', { user_id: 'bob' }),
        event(subject.siteB, 'w4', `${day11}T09:00:00.000Z`, 'pageview', '/'),
        event(subject.siteB, 'w4', `${day11}T09:05:00.000Z`, 'purchase', '/thanks', { user_id: 'bob' }),
      ]);
    });

    it('gives the purchase on site B with 1250 minor EUR and its touchpoint, the news/email/spring visit', async () => {
      const answer = await fixture().subject.readModel.conversions({ scope: bothSites, ranges: [days(day1, '2026-03-03')], lookbackMs });
      expect(answer.ranges).toEqual([
        {
          conversions: [
            {
              id: purchaseId,
              siteId: fixture().subject.siteB,
              ts: ms(`${day1}T09:01:00.000Z`),
              seq: expect.any(Number),
              userId: null,
              anonId: 'v3',
              revenue: { minor: 1250, currency: 'EUR' },
              touchpoints: [{ startMs: ms(`${day1}T09:00:00.000Z`), source: 'news', medium: 'email', campaign: 'spring' }],
            },
          ],
          more: false,
        },
      ]);
      expect(answer.asOf).toBe(answer.freshness.position);
      expect(answer.freshness.caughtUp).toBe(true);
      expect(answer.computedFrom).toBe('event_log');
    });

    it("merges a user's devices: bob's purchase has no revenue and both his visits, oldest first", async () => {
      const answer = await fixture().subject.readModel.conversions({ scope: bothSites, ranges: [days(day11, day11)], lookbackMs });
      expect(answer.ranges[0]!.conversions).toEqual([
        expect.objectContaining({
          anonId: 'w4',
          userId: 'bob',
          revenue: null,
          touchpoints: [
            { startMs: ms(`${day11}T08:00:00.000Z`), source: 'ads', medium: 'cpc', campaign: 'fall' },
            { startMs: ms(`${day11}T09:00:00.000Z`), source: 'direct', medium: null, campaign: null },
          ],
        }),
      ]);
    });

    it('counts a visit as a touchpoint only within the lookback and before the conversion', async () => {
      const { readModel } = fixture().subject;
      // 65 minutes back reaches the ad visit at 08:00; 64 minutes do not. The purchase's own visit started before it.
      const touchpoints = async (lookback: number) => (await readModel.conversions({ scope: bothSites, ranges: [days(day11, day11)], lookbackMs: lookback })).ranges[0]!.conversions[0]!.touchpoints.map((visit) => visit.source);
      expect(await touchpoints(65 * 60_000)).toEqual(['ads', 'direct']);
      expect(await touchpoints(64 * 60_000)).toEqual(['direct']);
    });

    it('reads one purchase by id, pages of several ranges in one snapshot, and answers as of an earlier position', async () => {
      const { readModel } = fixture().subject;
      const whole = days(day1, day11);
      const first = await readModel.conversions({ scope: bothSites, ranges: [{ ...whole, page: { after: null, limit: 1 } }, whole, { ...whole, eventId: purchaseId }], lookbackMs });
      expect(first.ranges.map((range) => [range.conversions.map((conversion) => conversion.anonId), range.more])).toEqual([
        [['v3'], true],
        [['v3', 'w4'], false],
        [['v3'], false],
      ]);
      const last = first.ranges[0]!.conversions[0]!;
      const second = await readModel.conversions({ scope: bothSites, ranges: [{ ...whole, page: { after: last, limit: 1 } }], lookbackMs, asOf: first.asOf });
      expect(second.ranges.map((range) => [range.conversions.map((conversion) => conversion.anonId), range.more])).toEqual([[['w4'], false]]);
      // As of the first purchase's position, bob's later one is not stored yet.
      const earlier = await readModel.conversions({ scope: bothSites, ranges: [whole], lookbackMs, asOf: last.seq });
      expect(earlier.asOf).toBe(last.seq);
      expect(earlier.ranges[0]!.conversions.map((conversion) => conversion.anonId)).toEqual(['v3']);
    });

    it('leaves out the purchases of other sites and other ranges', async () => {
      const { readModel, siteA } = fixture().subject;
      const siteAOnly = { siteIds: [siteA], workspaceId: fixture().subject.workspaceId };
      expect((await readModel.conversions({ scope: siteAOnly, ranges: [days(day1, day11)], lookbackMs })).ranges[0]!.conversions).toEqual([]);
      expect((await readModel.conversions({ scope: bothSites, ranges: [days('2026-03-04', '2026-03-10')], lookbackMs })).ranges[0]!.conversions).toEqual([]);
    });
  });
}
