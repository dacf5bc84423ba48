// The answer schemas of the report endpoints, defined once: they type the handlers and are published as JSON
// Schema at GET /v1/schemas and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { ReportMeta, reportAnswer } from '../reading/meta-answer.ts';
import { AnnotationAnswer } from '../annotations/answers.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Rate = v.pipe(v.number(), v.minValue(0));
const DateText = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));
const IsoTime = v.pipe(v.string(), v.isoTimestamp());



const SummaryFigures = {
  visitors: Count,
  visits: Count,
  pageviews: Count,
  events: Count,
  bounce_rate: Rate,
  avg_visit_duration_s: Rate,
  views_per_visit: Rate,
};
/** A point's date: YYYY-MM-DD (day, and a week's or month's first day in the range), or the ISO hour (2026-11-27T13:00:00Z). */
const PointDate = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:00:00Z)?$/));
const Series = v.array(v.strictObject({ date: PointDate, visitors: Count, visits: Count, pageviews: Count }));

export const SummaryAnswer = v.strictObject({
  meta: v.strictObject({
    ...ReportMeta.entries,
    /** The annotations of its range that the reader sees (CONTRACT section 10). */
    annotations: v.array(AnnotationAnswer),
    interval: v.picklist(['hour', 'day', 'week', 'month']),
    /** With compare: the comparison's days and, when the range is still running (partial), the moment its count stops. */
    comparison: v.optional(v.strictObject({ from: DateText, to: DateText, partial: v.boolean(), until: v.nullable(IsoTime), since: v.optional(IsoTime) })),
  }),
  data: v.strictObject({
    ...SummaryFigures,
    series: Series,
    comparison: v.optional(v.strictObject({ ...SummaryFigures, series: Series })),
  }),
});

/** realtime-v2 (CONTRACT section 10): the last 5 and 30 minutes by event time, and 30 per-minute pageview counts, oldest first. */
export const RealtimeAnswer = v.strictObject({
  visitors_last_5m: Count,
  visitors_last_30m: Count,
  pageviews_last_30m: Count,
  series: v.pipe(v.array(Count), v.length(30)),
});

export const PagesAnswer = reportAnswer(
  v.strictObject({
    rows: v.array(
      v.strictObject({
        path: v.string(),
        visitors: Count,
        pageviews: Count,
        entries: Count,
        exits: Count,
        /** Median scroll depth (percent) of the page's engagement events; absent when it has none. */
        scroll_depth: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
        /** Median engaged time of the page's engagement events, in seconds (1 decimal); absent when it has none. */
        time_on_page_s: v.optional(Rate),
      }),
    ),
  }),
);

export const SourcesAnswer = reportAnswer(
  v.strictObject({ rows: v.array(v.strictObject({ source: v.string(), visitors: Count, visits: Count, pageviews: Count, bounce_rate: Rate })) }),
);

export const BreakdownAnswer = reportAnswer(
  v.strictObject({ rows: v.array(v.strictObject({ value: v.string(), visitors: Count, visits: Count, pageviews: Count, bounce_rate: Rate })) }),
);

export const PropsAnswer = reportAnswer(
  v.strictObject({
    type: v.string(),
    property: v.string(),
    rows: v.array(v.strictObject({ value: v.string(), events: Count, visitors: Count })),
  }),
);

export const Money = v.strictObject({ currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)), amount: v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/)) });

export const CampaignsAnswer = reportAnswer(
  v.strictObject({
    rows: v.array(
      v.strictObject({
        utm_source: v.nullable(v.string()),
        utm_medium: v.nullable(v.string()),
        utm_campaign: v.nullable(v.string()),
        visitors: Count,
        visits: Count,
        conversions: Count,
        revenue: v.array(Money),
      }),
    ),
  }),
);

export const LegacyPageviewsAnswer = v.strictObject({ count: Count, by_day: v.array(v.strictObject({ date: DateText, count: Count })) });
export const LegacyEventsAnswer = v.strictObject({ by_name: v.array(v.strictObject({ name: v.string(), count: Count })) });
export const LegacySessionsAnswer = v.strictObject({ count: Count, avg_duration_s: Rate, avg_events: Rate, bounce_rate: Rate });

export type SummaryAnswer = v.InferOutput<typeof SummaryAnswer>;
export type RealtimeAnswer = v.InferOutput<typeof RealtimeAnswer>;
export type PagesAnswer = v.InferOutput<typeof PagesAnswer>;
export type SourcesAnswer = v.InferOutput<typeof SourcesAnswer>;
export type BreakdownAnswer = v.InferOutput<typeof BreakdownAnswer>;
export type PropsAnswer = v.InferOutput<typeof PropsAnswer>;
export type CampaignsAnswer = v.InferOutput<typeof CampaignsAnswer>;
export type LegacyPageviewsAnswer = v.InferOutput<typeof LegacyPageviewsAnswer>;
export type LegacyEventsAnswer = v.InferOutput<typeof LegacyEventsAnswer>;
export type LegacySessionsAnswer = v.InferOutput<typeof LegacySessionsAnswer>;

/** goals-v2 (CONTRACT section 10): one row per goal of the site, in the goals' order. */
export const GoalsAnswer = reportAnswer(
  v.strictObject({
    rows: v.array(
      v.strictObject({
        goal_id: v.string(),
        name: v.string(),
        visitors: Count,
        conversions: Count,
        conversion_rate: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
        revenue: v.array(Money),
      }),
    ),
  }),
);
export type GoalsAnswer = v.InferOutput<typeof GoalsAnswer>;

/**
 * dashboard-v2 (issue 29): every panel of a site's dashboard in one answer, each exactly what its own endpoint
 * answers for the same parameters (summary-v2, pages-v2, sources-v2, campaigns-v2, goals-v2, breakdown-v2); the
 * batch's own meta is that of its rankings' read (their freshness, and events when any needed raw events).
 */
export const DashboardAnswer = reportAnswer(
  v.strictObject({
    summary: SummaryAnswer,
    pages: PagesAnswer,
    sources: SourcesAnswer,
    campaigns: CampaignsAnswer,
    goals: GoalsAnswer,
    countries: BreakdownAnswer,
    devices: BreakdownAnswer,
    browsers: BreakdownAnswer,
    operating_systems: BreakdownAnswer,
    /** The world map's countries: breakdown-v2 by country with limit=200. */
    map: BreakdownAnswer,
  }),
);
export type DashboardAnswer = v.InferOutput<typeof DashboardAnswer>;
