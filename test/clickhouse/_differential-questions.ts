// The questions of the differential test (differential.test.ts), by family: each family gives the questions worth
// asking of a random world (its sites and days), and the test asks each of them of SQLite alone, of a single
// ClickHouse node and of a cluster, and compares the answers. A family moved to ClickHouse adds its builder here and
// one line to `families` in differential.test.ts.
import { correlate } from '../../src/analysis/correlation.ts';
import { explain } from '../../src/analysis/explanation.ts';
import { funnelReport } from '../../src/analysis/funnel-report.ts';
import type { FunnelQuery, FunnelStep } from '../../src/analysis/funnel-query.ts';
import { readPopulation } from '../../src/analysis/population.ts';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import type { RankDimension } from '../../src/read-model/report-questions.ts';
import type { ReportFilters, ReportRange } from '../../src/vocabulary/report-filters.ts';
import { dayMs } from '../../src/vocabulary/periods.ts';

/** What the random stream produced, as the questions need it. */
export interface DifferentialWorld {
  /** The sites (on a cluster, spread over every shard). */
  sites: string[];
  /** Every day an event can fall on. */
  range: ReportRange;
  /** Event types and paths the stream uses. */
  types: string[];
  paths: string[];
}

export interface DifferentialQuestion {
  name: string;
  /**
   * Fields that SQLite and ClickHouse are known to answer differently for this question, left out of that comparison
   * only (the cluster is always compared with the single node on the whole answer). Each is a finding, listed in
   * docs/clickhouse.md ("Differential test"); none is allowed between the single node and the cluster.
   */
  knownDivergences?: readonly string[];
  /** Asks one read model; `scopeOf` gives the scope of some sites on that server (workspace ids differ by server). */
  ask(readModel: ReadModel, scopeOf: (siteIds: readonly string[]) => ReadScope): Promise<unknown>;
}

export type DifferentialFamily = (world: DifferentialWorld) => DifferentialQuestion[];

/** The scopes asked about: one site (on one shard), and all of them (on a cluster: figures merged across shards). */
function scopesOf(world: DifferentialWorld): { name: string; siteIds: string[] }[] {
  return [
    { name: world.sites[0]!, siteIds: [world.sites[0]!] },
    { name: 'all sites', siteIds: world.sites },
  ];
}

function rangesOf(world: DifferentialWorld): { name: string; range: ReportRange }[] {
  const { fromDay, toDay } = world.range;
  return [
    { name: 'every day', range: world.range },
    { name: 'one middle day', range: { fromDay: fromDay + 1, toDay: fromDay + 1 } },
  ];
}

const filterSets = (world: DifferentialWorld): { name: string; filters: ReportFilters }[] => [
  { name: 'no filter', filters: {} },
  { name: 'source google.com', filters: { source: ['google.com'] } },
  { name: 'mobile', filters: { device: ['mobile'] } },
  { name: `path ${world.paths[1]}`, filters: { path: [world.paths[1]!] } },
];

/** Every combination of scope, range, filters and internal traffic, as selections. */
function selections(world: DifferentialWorld, scopeOf: (siteIds: readonly string[]) => ReadScope, siteIds: string[], range: ReportRange, filters: ReportFilters, withInternal: boolean): Selection {
  return { scope: scopeOf(siteIds), range, filters, withInternal };
}

function grid(world: DifferentialWorld): { name: string; siteIds: string[]; range: ReportRange; filters: ReportFilters; withInternal: boolean }[] {
  const cases = [];
  for (const scope of scopesOf(world)) {
    for (const range of rangesOf(world)) {
      for (const filter of filterSets(world)) {
        for (const withInternal of [false, true]) {
          // Internal traffic with every filter would double the questions for little: with no filter only.
          if (withInternal && filter.name !== 'no filter') continue;
          cases.push({ name: `${scope.name}, ${range.name}, ${filter.name}${withInternal ? ', internal' : ''}`, siteIds: scope.siteIds, range: range.range, filters: filter.filters, withInternal });
        }
      }
    }
  }
  return cases;
}

const dimensions: RankDimension[] = ['path', 'page', 'source', 'campaign', 'device', 'browser', 'os', 'country', 'region', 'city', 'type'];
/** With a filter, the dimensions whose figures come from different tables (events, visits, the visit of an event). */
const filteredDimensions: RankDimension[] = ['path', 'page', 'source', 'campaign', 'type'];

export const reportQuestions: DifferentialFamily = (world) =>
  grid(world).flatMap((selection): DifferentialQuestion[] => {
    const of = (scopeOf: (siteIds: readonly string[]) => ReadScope) => selections(world, scopeOf, selection.siteIds, selection.range, selection.filters, selection.withInternal);
    return [
      { name: `summary: ${selection.name}`, ask: (readModel, scopeOf) => readModel.summary({ ...of(scopeOf), visitors: true }) },
      ...(Object.keys(selection.filters).length === 0 ? dimensions : filteredDimensions).map(
        (by): DifferentialQuestion => ({
          name: `ranking by ${by}: ${selection.name}`,
          // A type's visitors from the rollups (no filter): SQLite keeps no visitor sets of types and answers 0,
          // ClickHouse counts them (docs/clickhouse.md, "Differential test"). With a filter both count them.
          knownDivergences: by === 'type' && Object.keys(selection.filters).length === 0 ? ['visitors'] : [],
          ask: (readModel, scopeOf) => readModel.ranking({ ...of(scopeOf), by, order: by === 'type' || by === 'path' ? 'events' : 'visits', offset: 0, limit: 6 }),
        }),
      ),
      {
        name: `ranking by path, second page by pageviews: ${selection.name}`,
        ask: (readModel, scopeOf) => readModel.ranking({ ...of(scopeOf), by: 'path', order: 'pageviews', offset: 2, limit: 2 }),
      },
      {
        name: `prop values of plan_chosen: ${selection.name}`,
        ask: (readModel, scopeOf) => readModel.propValues({ ...of(scopeOf), type: 'plan_chosen', property: 'plan', valueChars: 500, limit: 10 }),
      },
    ];
  });

export const eventQuestions: DifferentialFamily = (world) =>
  grid(world).flatMap((selection): DifferentialQuestion[] => {
    const of = (scopeOf: (siteIds: readonly string[]) => ReadScope) => selections(world, scopeOf, selection.siteIds, selection.range, selection.filters, selection.withInternal);
    const window = { startMs: selection.range.fromDay * dayMs, endMs: (selection.range.toDay + 1) * dayMs, bucketMs: 6 * 3_600_000 };
    return [
      { name: `event list, oldest first: ${selection.name}`, ask: (readModel, scopeOf) => readModel.listEvents({ ...of(scopeOf), limit: 15 }) },
      { name: `event list, newest first: ${selection.name}`, ask: (readModel, scopeOf) => readModel.listEvents({ ...of(scopeOf), newestFirst: true, limit: 15 }) },
      { name: `event type counts: ${selection.name}`, ask: (readModel, scopeOf) => readModel.eventTypeCounts(of(scopeOf)) },
      {
        name: `path activity: ${selection.name}`,
        ask: (readModel, scopeOf) => {
          const { range: _range, ...rest } = of(scopeOf);
          return readModel.pathActivity({ ...rest, window, countFromMs: window.startMs + 3_600_000, limit: 5 });
        },
      },
    ];
  });

export const timeQuestions: DifferentialFamily = (world) =>
  grid(world).flatMap((selection): DifferentialQuestion[] => {
    const of = (scopeOf: (siteIds: readonly string[]) => ReadScope) => selections(world, scopeOf, selection.siteIds, selection.range, selection.filters, selection.withInternal);
    const hours = selection.range.fromDay === selection.range.toDay ? (['hour'] as const) : ([] as const);
    return (['day', 'week', 'month', ...hours] as const).map((interval) => ({
      name: `series by ${interval}: ${selection.name}`,
      ask: (readModel, scopeOf) => readModel.series({ ...of(scopeOf), interval }),
    }));
  });

/** A funnel query as the API builds it (toFunnelQuery), for the analysis to run over a read model. */
function funnelQueryOf(selection: { siteIds: string[]; range: ReportRange; filters: ReportFilters; withInternal: boolean }, steps: FunnelStep[], shape: { windowMs: number; dateMode: FunnelQuery['dateMode']; breakdown: FunnelQuery['breakdown'] }): FunnelQuery {
  const day = (value: number) => new Date(value * dayMs).toISOString().slice(0, 10);
  return {
    siteId: selection.siteIds.length === 1 ? selection.siteIds[0]! : null,
    from: day(selection.range.fromDay),
    to: day(selection.range.toDay),
    range: selection.range,
    steps,
    window: { value: shape.windowMs / 60_000, unit: 'minutes' },
    windowMs: shape.windowMs,
    dateMode: shape.dateMode,
    filters: selection.filters,
    withInternal: selection.withInternal,
    breakdown: shape.breakdown,
  };
}

const funnelStep = (type: string, path: string | null = null, props: FunnelStep['props'] = null, prefix = false): FunnelStep => ({ type, path, prefix, props, label: type });

/**
 * Funnels as the API answers them (the analysis's matching over each read model's population): the report with and
 * without a breakdown, both date modes, props and prefix steps, and the correlation and explanation panels of the
 * first transition (which ask the read model's attempts question).
 */
export const funnelQuestions: DifferentialFamily = (world) =>
  grid(world).flatMap((selection): DifferentialQuestion[] => {
    const shapes = [
      { name: 'first_step, 30 minutes', windowMs: 30 * 60_000, dateMode: 'first_step' as const, breakdown: null },
      { name: 'all_steps, 2 days, by device', windowMs: 2 * dayMs, dateMode: 'all_steps' as const, breakdown: 'device' as const },
    ];
    const funnels = [
      { name: `${world.paths[0]} → /blog* → purchase`, steps: [funnelStep('pageview', world.paths[0]!), funnelStep('pageview', '/blog', null, true), funnelStep('purchase')] },
      { name: 'pageview → plan_chosen pro → signup', steps: [funnelStep('pageview'), funnelStep('plan_chosen', null, { plan: 'pro' }), funnelStep('signup')] },
    ];
    return funnels.flatMap((funnel) =>
      shapes.map(
        (shape): DifferentialQuestion => ({
          name: `funnel ${funnel.name}, ${shape.name}: ${selection.name}`,
          ask: async (readModel, scopeOf) => {
            const scope = scopeOf(selection.siteIds);
            const query = funnelQueryOf(selection, funnel.steps, shape);
            const population = await readPopulation(readModel, { scope, query, withSeq: true });
            const transition = { fromStep: 1, toStep: 2 };
            const panels = { scope, query, transition, population, watermarkSeq: population.asOf };
            return { report: funnelReport(query, population.people), correlation: await correlate(readModel, panels), explanation: await explain(readModel, panels) };
          },
        }),
      ),
    );
  });
