// "Send a test now": the member's report for its most recent complete period, marked [Test], through the outbox
// (so a refused attempt is retried like any mail) and attempted at once; the answer says how that attempt went.
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import { queueMail } from '../mail/queries/mail-outbox-rows.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { composeReportMail } from './compose-report.ts';
import type { SubscriptionRow } from './queries/subscription-rows.ts';
import { mailableUser } from './recipients.ts';
import { duePeriodOf } from './report-periods.ts';

export interface TestSend {
  id: string;
  to: string;
  /** sent: the SMTP server accepted it; pending: refused for now, retried; failed: refused for good. */
  status: 'sent' | 'pending' | 'failed';
}

export async function sendTestReport(context: AppContext, readModel: ReadModel, mailer: Mailer, site: SiteRow, subscription: SubscriptionRow): Promise<TestSend> {
  const user = mailableUser(context.db, subscription.user_id, site.workspace_id);
  if (!user) throw ApiError.notFound('No such e-mail report');
  const now = context.clock.now();
  const mail = await composeReportMail(context, readModel, site, duePeriodOf(subscription.frequency, now), { subscriptionId: subscription.id, test: true });
  const id = `test:${context.random.uuid()}`;
  inWriteTransaction(context.db, () =>
    queueMail(context.db, { id, kind: 'report_test', recipient: user.email, mail, nowMs: now }),
  );
  const row = await mailer.outbox.sendNow(id);
  return { id, to: user.email, status: row?.status ?? 'pending' };
}
