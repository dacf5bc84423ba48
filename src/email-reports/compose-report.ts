// One report mail for a site and a period, ready for the outbox or a direct send: figures from the read model,
// the unsubscribe link signed for the subscription (none for an operator's one-off, which subscribes nobody).
import type { AppContext } from '../context.ts';
import { signLinkToken } from '../mail/signed-links.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { buildReportFigures, type ReportFigures } from './report-figures.ts';
import { type ReportMail, renderReportMail } from './report-mail.ts';
import type { ReportPeriod } from './report-periods.ts';

export const unsubscribePurpose = 'email-report-unsubscribe';

/** The one-click link of a subscription (GET shows a confirmation page, POST unsubscribes). */
export function unsubscribeUrlOf(context: AppContext, subscriptionId: string): string {
  return `${context.config.mailLinkBase}/v1/email-reports/unsubscribe?token=${encodeURIComponent(signLinkToken(context, unsubscribePurpose, subscriptionId))}`;
}

/**
 * @example const mail = await composeReportMail(context, readModel, site, period, { subscriptionId, test: false });
 */
export async function composeReportMail(
  context: AppContext,
  readModel: ReadModel,
  site: SiteRow,
  period: ReportPeriod,
  options: { subscriptionId: string | undefined; test: boolean; figuresCache?: Map<string, Promise<ReportFigures>> },
): Promise<ReportMail> {
  // Within one pass, every subscriber of a site and frequency gets the same figures: asked once.
  const key = `${site.id}\u0000${period.frequency}\u0000${period.dueDay}`;
  let figuresPromise = options.figuresCache?.get(key);
  if (!figuresPromise) {
    figuresPromise = buildReportFigures(readModel, site, period);
    options.figuresCache?.set(key, figuresPromise);
  }
  const figures = await figuresPromise;
  const dashboardUrl = `${context.config.mailLinkBase}/?site=${encodeURIComponent(site.id)}`;
  const unsubscribeUrl = options.subscriptionId === undefined ? undefined : unsubscribeUrlOf(context, options.subscriptionId);
  const mail = renderReportMail({ siteName: site.name, period, figures, unsubscribeUrl, dashboardUrl, test: options.test });
  return mail;
}
