// POST /sites/:siteId/sourcemaps (structured envelope): 401 for any caller without access to the site, 400 for a
// bad release, file or map, 413 past 25 MB decoded; 201 { size } for a new map and for one replaced alike.
import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { parseJsonText, readBodyText } from '../http/body.ts';
import { jsonBody, namedInPath, refusals, throttledCredential } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { siteIdOf } from '../reading/scope.ts';
import { UploadAnswer } from './answers.ts';
import { resolveUploadSite } from './upload-access.ts';
import { checkUpload, maxMapBytes, maxUploadBodyBytes, UploadBody } from './upload-body.ts';
import { createUploadSlots } from './upload-slots.ts';
import { uploadSourcemap } from './upload-sourcemap.ts';

/** One upload at a time, sixteen waiting (src/sourcemaps/upload-slots.ts). */
const activeUploads = 1;
const waitingUploads = 16;

export function mountSourcemaps(app: H3, context: AppContext): void {
  const slots = createUploadSlots(activeUploads, waitingUploads);
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/sourcemaps',
    // No 403: a caller without access is a 401 (spec, Authentication 5); only the admin token learns of a missing site.
    refusals: refusals({ 401: ['unauthorized'] }, throttledCredential, namedInPath, jsonBody, { 503: ['overloaded'] }),
    summary:
      `Upload the source map of one script of a release: { release, file, map (base64, at most ${maxMapBytes} bytes decoded) }; ` +
      'an upsert on (site, release, file). Site bearer (while REQUIRE_API_KEY is none), an ingest:write or admin key, or the admin token',
    body: UploadBody,
    status: 201,
    answer: UploadAnswer,
    handler: async (event) => {
      const site = resolveUploadSite(event, context, siteIdOf(event));
      const done = await slots.take();
      try {
        const text = await readBodyText(event, { limitBytes: maxUploadBodyBytes, accept: ['application/json'] });
        return await uploadSourcemap(context, site, checkUpload(parseJsonText(text)));
      } finally {
        done();
      }
    },
  });
}
