// GET /sdk.js: the browser tracker (web/tracker/, docs/tracker.md), embedded in the bundle at build time. Cached by
// browsers for an hour and revalidated with its content hash as ETag (304 on a match).
import type { H3, H3Event } from 'h3';
import { createHash } from 'node:crypto';
import trackerText from 'virtual:sightline-tracker';
import { addRoute } from '../http/routes.ts';

const body = Buffer.from(trackerText, 'utf8');
/** A strong validator: the first 128 bits of the script's SHA-256, base64url. */
export const trackerEtag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

const headers = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=3600',
  etag: trackerEtag,
};

/** Whether If-None-Match names the current script (a list, weak forms and `*` included, as RFC 9110 says). */
function matches(ifNoneMatch: string | null): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const text = tag.trim();
    return text === '*' || text === trackerEtag || text === `W/${trackerEtag}`;
  });
}

export function mountTracker(app: H3): void {
  addRoute(app, {
    method: 'GET',
    path: '/sdk.js',
    summary: 'The browser tracker script (docs/tracker.md)',
    auth: 'none',
    refusals: {},
    produces: 'text/javascript',
    handler: (event: H3Event) => {
      if (matches(event.req.headers.get('if-none-match'))) return new Response(null, { status: 304, headers });
      return new Response(body, { status: 200, headers: { ...headers, 'content-length': String(body.length) } });
    },
  });
}
