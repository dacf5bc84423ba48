// Grouped sources (docs/reports.md, "Grouped sources"): a visit's stored source (utm_source, a click id's network, the
// referrer's host without www., or direct) belongs to a named group when a published referrer list (Matomo's
// searchengine-and-social-list, CC0, generated into src/vocabulary/source-groups.json by build/source-groups.mjs)
// lists its host, or when it is the group's name in lower case (utm_source=google, a gclid): google.com, google.de
// and google are "Google"; t.co, twitter.com and x.com are "Twitter". Engine-free: the SQLite read model and a
// ClickHouse one resolve sources through the same functions.
import list from '../vocabulary/source-groups.json' with { type: 'json' };

const groupByHost: ReadonlyMap<string, string> = new Map(Object.entries(list.hosts));
const groupNames: ReadonlySet<string> = new Set(list.names);
/** A lower-case name is a source too (utm_source=google, gclid → google): the first group of that name keeps it. */
const groupByLowerName: ReadonlyMap<string, string> = new Map([...list.names].reverse().map((name) => [name.toLowerCase(), name]));

// "{}" is a country code: a subdomain label, or a top-level domain, alone or after com., org., net., co., it. or
// edu. (Matomo's README). Hosts hold only [a-z0-9.-], so the rest of a pattern is matched literally.
const countryCode = '[a-z]{2,3}';
const topLevel = `(?:(?:com|org|net|co|it|edu)\\.)?${countryCode}`;
const patterns: readonly { test: RegExp; name: string }[] = list.patterns.map(([pattern, name]) => {
  const parts = pattern!.split('{}').map((part) => part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'));
  const source = parts.map((part, index) => (index === 0 ? part : `${index === parts.length - 1 && part === '' ? topLevel : countryCode}${part}`)).join('');
  return { test: new RegExp(`^${source}$`), name: name! };
});

const resolved = new Map<string, string | null>();
const maxResolved = 100_000;

/**
 * The group a stored source belongs to, or null (a host no list names, a campaign's utm_source, direct).
 * @example sourceGroupOf('google.de') // 'Google'; sourceGroupOf('t.co') // 'Twitter'; sourceGroupOf('direct') // null
 */
export function sourceGroupOf(source: string): string | null {
  const known = resolved.get(source);
  if (known !== undefined) return known;
  let group = groupByHost.get(source) ?? groupByLowerName.get(source) ?? null;
  if (group === null && source.includes('.')) group = patterns.find((pattern) => pattern.test.test(source))?.name ?? null;
  if (resolved.size >= maxResolved) resolved.clear();
  resolved.set(source, group);
  return group;
}

/** What a grouped report shows for a stored source: its group's name, or the source itself. */
export function groupedSourceKey(source: string): string {
  return sourceGroupOf(source) ?? source;
}

/** Whether a filter value names a group (case as the list writes it: "Google", not "google"). */
export function isSourceGroupName(value: string): boolean {
  return groupNames.has(value);
}

/**
 * A source filter with each group's name replaced by the stored sources of that group (among `known`, the scope's
 * stored sources): the filter then selects exactly the group's visits, on any engine, as a list of raw values.
 * Values that name no group stay as they are (source=google.com is that host only).
 * @example expandSourceFilter(['Google'], ['google.com', 'google', 'bing.com']) // ['google.com', 'google']
 */
export function expandSourceFilter(values: readonly string[], known: Iterable<string>): string[] {
  if (!values.some(isSourceGroupName)) return [...values];
  const wanted = new Set(values.filter(isSourceGroupName));
  const expanded = new Set(values.filter((value) => !isSourceGroupName(value)));
  for (const source of known) if (wanted.has(groupedSourceKey(source))) expanded.add(source);
  return [...expanded];
}

/** Where the list comes from (docs, the about page). */
export const sourceGroupsOrigin = { source: list.source, commit: list.commit, licence: list.licence };

/** A question that may carry a source filter: over a scope of sites (most) or one site (a live tail). */
interface FilteredQuestion {
  filters?: { source?: string[] };
  scope?: { siteIds: readonly string[] };
  siteId?: string;
}

/**
 * The question with a group's name in its source filter replaced by the group's stored sources (expandSourceFilter);
 * any other question as it is.
 */
export function withGroupsExpanded<Question>(question: Question, knownSources: (siteIds: readonly string[]) => Iterable<string>): Question {
  const asked = question as FilteredQuestion | undefined;
  const source = asked?.filters?.source;
  if (!source || !source.some(isSourceGroupName)) return question;
  const siteIds = asked.scope?.siteIds ?? (asked.siteId !== undefined ? [asked.siteId] : []);
  return { ...question, filters: { ...asked.filters, source: expandSourceFilter(source, knownSources(siteIds)) } };
}

/**
 * A read model whose every question takes a group's name as a source filter (source=Google: all of Google's stored
 * sources, exactly), whatever engine answers it: `knownSources` lists the scope's stored sources.
 * @example const readModel = withSourceGroups(createSqliteReadModel(options), (siteIds) => storedSources(db, siteIds));
 */
export function withSourceGroups<Model extends object>(model: Model, knownSources: (siteIds: readonly string[]) => Iterable<string>): Model {
  const wrapped: Record<string, unknown> = {};
  for (const [name, ask] of Object.entries(model)) {
    wrapped[name] = typeof ask === 'function' ? (question: unknown, ...rest: unknown[]) => ask.call(model, withGroupsExpanded(question, knownSources), ...rest) : ask;
  }
  return wrapped as Model;
}
