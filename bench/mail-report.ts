// The mail benchmark's timed part (bundled by bench/mail.mjs): builds a site's weekly and monthly report mails
// exactly as the schedule does (composeReportMail: the read model's figures, then the HTML and text parts), `runs`
// times each after one warm-up, on a data directory the reports workload filled; prints the timings as JSON.
import { cryptoRandom, systemClock } from '../src/clock.ts';
import { createAppContext } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/open.ts';
import { composeReportMail } from '../src/email-reports/compose-report.ts';
import { duePeriodOf } from '../src/email-reports/report-periods.ts';
import { createSqliteReadModel } from '../src/read-model/sqlite/sqlite-read-model.ts';
import { databasePath } from '../src/server.ts';
import { findSite } from '../src/tenants/queries/find-site.ts';

export async function timeReportMails(dataDir: string, siteId: string, dueAtMs: number, runs: number): Promise<Record<string, { times: number[]; htmlBytes: number; textBytes: number }>> {
  const db = openDatabase(databasePath(dataDir));
  try {
    const context = createAppContext({ db, config: loadConfig({ DATA_DIR: dataDir }), clock: systemClock, random: cryptoRandom, adminToken: 'bench' });
    const readModel = createSqliteReadModel({ db, waitForProjection: async () => true });
    const site = findSite(db, siteId);
    if (!site) throw new Error(`no site ${siteId}`);
    const results: Record<string, { times: number[]; htmlBytes: number; textBytes: number }> = {};
    for (const frequency of ['weekly', 'monthly'] as const) {
      const period = duePeriodOf(frequency, dueAtMs);
      const times: number[] = [];
      let last = { html: '', text: '' };
      for (let run = 0; run <= runs; run++) {
        const started = performance.now();
        last = await composeReportMail(context, readModel, site, period, { subscriptionId: 'bench-subscription', test: false });
        if (run > 0) times.push(performance.now() - started);
      }
      results[frequency] = { times, htmlBytes: Buffer.byteLength(last.html), textBytes: Buffer.byteLength(last.text) };
    }
    return results;
  } finally {
    db.close();
  }
}
