// The dimensions rollups are kept by. Visit dimensions take the visit's value (its first event's, CONTRACT
// section 4) for all of its events; event dimensions take each event's own. Codes are stored: never renumber.

/** What a visit carries from its first event: the values of the visit dimensions (stored visits name them alike). */
export interface VisitAttributes {
  source: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  browser: string | null;
  os: string | null;
  device_type: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
}

export const Dim = {
  total: 0,
  source: 1,
  device: 2,
  browser: 3,
  os: 4,
  country: 5,
  region: 6,
  city: 7,
  campaign: 8,
  path: 9,
  page: 10,
  type: 11,
} as const;
export type Dim = (typeof Dim)[keyof typeof Dim];

export const visitDims = [Dim.source, Dim.device, Dim.browser, Dim.os, Dim.country, Dim.region, Dim.city, Dim.campaign] as const;
export type VisitDim = (typeof visitDims)[number];

/** The filter parameter names of the visit dimensions (the common report parameters). */
export const visitDimByFilter = {
  source: Dim.source,
  device: Dim.device,
  browser: Dim.browser,
  os: Dim.os,
  country: Dim.country,
  region: Dim.region,
  city: Dim.city,
} as const;

/** The visits table's (`sessions`) column(s) holding a visit dimension: a fixed allow-list for the SQL that reads them. */
export const visitDimColumns: Record<VisitDim, readonly (keyof VisitAttributes)[]> = {
  [Dim.source]: ['source'],
  [Dim.device]: ['device_type'],
  [Dim.browser]: ['browser'],
  [Dim.os]: ['os'],
  [Dim.country]: ['country'],
  [Dim.region]: ['region'],
  [Dim.city]: ['city'],
  [Dim.campaign]: ['utm_source', 'utm_medium', 'utm_campaign'],
};

/** Which dimensions keep visitor sets (event types only need counts). */
export function keepsVisitorSets(dim: Dim): boolean {
  return dim !== Dim.type;
}

/**
 * Dimensions whose visitors are the people with a pageview of the value (CONTRACT section 10: "a row's visitors are
 * the people with a pageview of that path"): a custom event on a path counts as one of its events, never as a visitor.
 */
export function countsPageviewVisitorsOnly(dim: Dim): boolean {
  return dim === Dim.path || dim === Dim.page;
}

/** A campaign is the visit's (utm_source, utm_medium, utm_campaign); visits without any of them have none. */
export function campaignKey(source: string | null, medium: string | null, campaign: string | null): string | null {
  if (source === null && medium === null && campaign === null) return null;
  return JSON.stringify([source, medium, campaign]);
}

export function parseCampaignKey(key: string): [string | null, string | null, string | null] {
  return JSON.parse(key) as [string | null, string | null, string | null];
}

/** The value of a visit dimension for a visit; null means the visit has none (and is in no row of it). */
export function visitDimValue(visit: VisitAttributes, dim: VisitDim): string | null {
  switch (dim) {
    case Dim.source:
      return visit.source;
    case Dim.device:
      return visit.device_type;
    case Dim.browser:
      return visit.browser;
    case Dim.os:
      return visit.os;
    case Dim.country:
      return visit.country;
    case Dim.region:
      return visit.region;
    case Dim.city:
      return visit.city;
    case Dim.campaign:
      return campaignKey(visit.utm_source, visit.utm_medium, visit.utm_campaign);
  }
}

/** The page of include_params=true: the path and the query string without its utm_* parameters. */
export function pageKeyOf(path: string | null, query: string | null): string | null {
  if (path === null) return null;
  if (!query) return path;
  const kept = query.split('&').filter((part) => part !== '' && !/^utm_/i.test(part.split('=')[0] ?? ''));
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

export const purchaseType = 'purchase';
