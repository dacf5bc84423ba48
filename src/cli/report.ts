// `sightline report send --site S --to EMAIL [--frequency weekly|monthly]`: an operator's one-off report mail of a
// site's most recent complete week (or month), built exactly as a subscriber's (src/email-reports/) from the data
// directory's derived figures and sent at once through SMTP_URL. It subscribes no one, so it carries no unsubscribe
// link; nothing is queued or retried: a refusal prints the SMTP server's answer and exits 1.
import { defineCommand } from 'citty';
import * as v from 'valibot';
import { composeReportMail } from '../email-reports/compose-report.ts';
import { duePeriodOf } from '../email-reports/report-periods.ts';
import { frequencies } from '../email-reports/subscriptions.ts';
import { ApiError } from '../http/errors.ts';
import { createMailTransport } from '../mail/mail-transport.ts';
import { createSqliteReadModel } from '../read-model/sqlite/sqlite-read-model.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { Email } from '../users/accounts.ts';
import { toDateText } from '../vocabulary/periods.ts';
import { commonArgs, output, parseFlags, runCommandSafely, withContext } from './common.ts';

const SendFlags = v.strictObject({
  site: v.pipe(v.string(), v.minLength(1, 'must name a site')),
  to: Email,
  frequency: v.optional(v.picklist(frequencies, `must be one of ${frequencies.join(', ')}`), 'weekly'),
});

const send = defineCommand({
  meta: { name: 'send', description: "Mail a site's report of the last complete week (or month) to an address, now (SMTP_URL, SMTP_FROM)" },
  args: {
    ...commonArgs,
    site: { type: 'string', description: 'Site id', required: true },
    to: { type: 'string', description: 'The address to mail', required: true },
    frequency: { type: 'string', description: 'weekly (the last Monday-Sunday, default) or monthly (the last calendar month)' },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const input = parseFlags(SendFlags, { site: args.site, to: args.to, frequency: args.frequency });
        // SMTP_URL and SMTP_FROM come from the environment, checked like the server's (src/config.ts).
        const smtp = context.config.smtp;
        if (!smtp) throw ApiError.conflict('smtp_not_configured', 'Mail is not configured: set SMTP_URL and SMTP_FROM as for the server');
        const site = findSite(context.db, input.site);
        if (!site) throw ApiError.notFound(`No site ${input.site}`);
        // The server's projector keeps the derived figures; the CLI reads them as they are (it never waits).
        const readModel = createSqliteReadModel({ db: context.db, waitForProjection: async () => true });
        const period = duePeriodOf(input.frequency, context.clock.now());
        const mail = await composeReportMail(context, readModel, site, period, { subscriptionId: undefined, test: false });
        const transport = createMailTransport(smtp.url);
        try {
          await transport.send({ from: smtp.from, to: input.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
        } finally {
          transport.close();
        }
        const [from, to] = [toDateText(period.range.fromDay), toDateText(period.range.toDay)];
        output(args, { site: site.id, to: input.to, frequency: input.frequency, from, until: to }, () => `Sent the ${input.frequency} report of ${site.id} (${from} to ${to}) to ${input.to}`);
      }),
    ),
});

export const reportCommand = defineCommand({
  meta: { name: 'report', description: 'E-mail reports (docs/email.md)' },
  subCommands: { send },
});
