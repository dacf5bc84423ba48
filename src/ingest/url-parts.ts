// What a page URL and a referrer tell: path, query, utm_* fields, click ids, and the acquisition source.

export interface UrlFacts {
  host: string | null;
  path: string | null;
  query: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  clickSource: string | null;
}

const emptyUrlFacts: UrlFacts = {
  host: null,
  path: null,
  query: null,
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_term: null,
  utm_content: null,
  clickSource: null,
};

/** Known advertising click ids and the source they stand for (CONTRACT section 2). */
const clickIds: [string, string][] = [
  ['gclid', 'google'],
  ['fbclid', 'facebook'],
  ['msclkid', 'bing'],
];

function nonEmpty(value: string | null): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, 256) : null;
}

export function describeUrl(url: string | null | undefined): UrlFacts {
  if (!url) return emptyUrlFacts;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return emptyUrlFacts;
  }
  const params = parsed.searchParams;
  const clickId = clickIds.find(([name]) => params.has(name));
  return {
    host: parsed.hostname.toLowerCase(),
    path: parsed.pathname || '/',
    query: parsed.search ? parsed.search.slice(1) : null,
    utm_source: nonEmpty(params.get('utm_source')),
    utm_medium: nonEmpty(params.get('utm_medium')),
    utm_campaign: nonEmpty(params.get('utm_campaign')),
    utm_term: nonEmpty(params.get('utm_term')),
    utm_content: nonEmpty(params.get('utm_content')),
    clickSource: clickId ? clickId[1] : null,
  };
}

/** The referrer's host without www., or null when there is none or it is the page's own host (a self-referral). */
export function referrerHostOf(referrer: string | null | undefined, pageHost: string | null): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    host = new URL(referrer).hostname.toLowerCase();
  } catch {
    return null;
  }
  if (!host) return null;
  const bare = host.startsWith('www.') ? host.slice(4) : host;
  const pageBare = pageHost?.startsWith('www.') ? pageHost.slice(4) : pageHost;
  return bare === pageBare ? null : bare;
}

/** utm_source, else a click id's network, else the referrer host, else direct. */
export function sourceOf(url: UrlFacts, referrerHost: string | null): string {
  return url.utm_source?.toLowerCase() ?? url.clickSource ?? referrerHost ?? 'direct';
}
