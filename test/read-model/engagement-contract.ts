// The engagement questions of the read model's contract (contract.ts): the medians of the tracker's engagement
// events per page, computed by hand over a later day of site A.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import type { ContractFixture } from './contract.ts';

export function describeEngagementQuestions(fixture: () => ContractFixture): void {
  describe('engagement questions', () => {
    const day18 = '2026-03-18';
    const day = dayOf(Date.parse(`${day18}T00:00:00.000Z`));
    let siteA: ReadScope;
    const on = (extra: Partial<Selection> = {}): Selection => ({ scope: siteA, range: { fromDay: day, toDay: day }, filters: {}, withInternal: false, ...extra });

    beforeAll(async () => {
      const { subject, event } = fixture();
      siteA = { siteIds: [subject.siteA], workspaceId: subject.workspaceId };
      const engaged = (anon: string, at: string, path: string, scroll_depth: unknown, engaged_ms: unknown) =>
        event(subject.siteA, anon, `${day18}T${at}.000Z`, 'engagement', path, { props: { scroll_depth, engaged_ms } });
      // /article: three readers (40 % for 1 s, 60 % for 5 s, 90 % for 3 s): medians 60 % and 3 s. A fourth event
      // claims 150 %: not a depth, left out. /short: two (100 %, 2 s; 50 %, 4 s): medians 75 % and 3 s (the mean of
      // the two middle values). /pricing?plan=pro and /pricing: by page, two pages of one path.
      await subject.store(subject.siteA, [
        event(subject.siteA, 'e1', `${day18}T08:00:00.000Z`, 'pageview', '/article'),
        engaged('e1', '08:01:00', '/article', 40, 1000),
        event(subject.siteA, 'e2', `${day18}T08:00:00.000Z`, 'pageview', '/article'),
        engaged('e2', '08:02:00', '/article', 60, 5000),
        event(subject.siteA, 'e3', `${day18}T08:00:00.000Z`, 'pageview', '/article'),
        engaged('e3', '08:03:00', '/article', 90, 3000),
        engaged('e3', '08:04:00', '/article', 150, 3000),
        engaged('e1', '08:05:00', '/short', 100, 2000),
        engaged('e2', '08:06:00', '/short', 50, 4000),
        engaged('e1', '08:07:00', '/pricing?plan=pro', 30, 1000),
        engaged('e2', '08:08:00', '/pricing', 70, 7000),
      ]);
    });

    it('gives each page\'s median scroll depth and engaged time, invalid props left out', async () => {
      const answer = await fixture().subject.readModel.pageEngagement({ ...on(), by: 'path', keys: ['/article', '/short', '/pricing', '/never'] });
      expect(Object.fromEntries(answer.pages)).toEqual({
        '/article': { scrollDepth: 60, engagedMs: 3000, events: 3 },
        '/short': { scrollDepth: 75, engagedMs: 3000, events: 2 },
        '/pricing': { scrollDepth: 50, engagedMs: 4000, events: 2 },
      });
      expect(answer.computedFrom).toBe('event_log');
    });

    it('answers by page (the query kept) and under a path filter', async () => {
      const byPage = await fixture().subject.readModel.pageEngagement({ ...on(), by: 'page', keys: ['/pricing?plan=pro', '/pricing'] });
      expect(Object.fromEntries(byPage.pages)).toEqual({
        '/pricing?plan=pro': { scrollDepth: 30, engagedMs: 1000, events: 1 },
        '/pricing': { scrollDepth: 70, engagedMs: 7000, events: 1 },
      });
      const filtered = await fixture().subject.readModel.pageEngagement({ ...on({ filters: { path: ['/short'] } }), by: 'path', keys: ['/article', '/short'] });
      expect([...filtered.pages.keys()]).toEqual(['/short']);
    });
  });
}
