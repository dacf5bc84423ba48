// GDPR: export and delete one subject ({ user_id } or { anon_id }) of a site. The admin token or an admin-scoped key
// of the site's workspace; a site of another workspace answers the same 404 as a missing one (structured envelope).
import { type H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { actorOf } from '../audit/record-audit.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { readStoreRefusals } from '../reading/common-param-errors.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { GdprDeleteAnswer, GdprExportAnswer } from './answers.ts';
import { deleteSubject, exportSubject } from './gdpr-actions.ts';
import type { ShippedSubjectEvents } from '../clickhouse/subject-events.ts';
import { GdprBody, subjectOf } from './subject.ts';
import { pathParam } from '../http/path-params.ts';

const noStore = { 'cache-control': 'no-store' };

/** `shippedEventsOf`: with ClickHouse, the subject's events it holds (the log may have been trimmed of them). */
export function mountGdpr(app: H3, context: AppContext, shippedEventsOf?: ShippedSubjectEvents): void {
  const routes = [
    {
      action: 'export',
      run: (...args: Parameters<typeof deleteSubject>) => exportSubject(...args, shippedEventsOf),
      answer: GdprExportAnswer, summary: 'Export everything stored of a subject ({ user_id } or { anon_id }): its anon_ids, events and quarantined events' },
    { action: 'delete', run: deleteSubject, answer: GdprDeleteAnswer, summary: 'Delete a subject ({ user_id } or { anon_id }): its events, identities, visits, DLQ rows and its share of every report' },
  ] as const;
  for (const { action, run, answer, summary } of routes) {
    addRoute(app, {
      method: 'POST',
      path: `/sites/:siteId/gdpr/${action}`,
      headers: noStore,
      // An export reads ClickHouse when it is configured (the log may have been trimmed): 503 while it is unreachable.
      refusals: action === 'export' ? refusals(needsCredential, namedInPath, jsonBody, readStoreRefusals) : refusals(needsCredential, namedInPath, jsonBody),
      summary,
      body: GdprBody,
      answer,
      handler: async (event) => {
        const { caller, site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
        const subject = subjectOf(parseBody(GdprBody, await readJsonBody(event)));
        return run(context, actorOf(caller), site, subject);
      },
    });
  }
}
