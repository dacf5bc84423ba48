// The engagement questions (pages-v2's scroll_depth and time_on_page_s, CONTRACT section 10): the medians of the
// engagement events the tracker sends when a page is hidden or left, for the pages a report shows.
import type { Answer, Selection } from './questions.ts';

/** The type of the tracker's engagement events (props { scroll_depth: 0-100, engaged_ms }). */
export const engagementType = 'engagement';

export interface PageEngagementQuestion extends Selection {
  /** Pages by path, or by path with its query (utm_* removed), as the ranking that asks. */
  by: 'path' | 'page';
  /** The pages to answer for (a report's shown rows). */
  keys: readonly string[];
  /** Only engagement events at or after this time (epoch ms): a rolling window inside the range (since=). */
  sinceMs?: number;
}

export interface PageEngagement {
  /** Median of the engagement events' scroll_depth (percent). */
  scrollDepth: number;
  /** Median of their engaged_ms. */
  engagedMs: number;
  /** Engagement events counted (those with valid props). */
  events: number;
}

export interface PageEngagementFigures {
  /** Only the keys with at least one valid engagement event in the selection. */
  pages: ReadonlyMap<string, PageEngagement>;
}

export interface EngagementQuestions {
  /**
   * The medians of the selection's engagement events on each page; events whose props are not a scroll_depth of
   * 0-100 and a whole engaged_ms of at least 0 are left out.
   * @example await readModel.pageEngagement({ ...selection, by: 'path', keys: ['/', '/pricing'] })
   */
  pageEngagement(question: PageEngagementQuestion): Promise<Answer<PageEngagementFigures>>;
}

/** The median of numbers (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
