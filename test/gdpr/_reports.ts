// Shared by the GDPR and retention tests: every report of a site over a range, read over HTTP (data only: meta holds
// freshness times that legitimately differ), and driving a manual projector to the log's end.
import { expect } from 'vitest';
import type { TestServer } from '../_setup.ts';

/** Every report of the site and the workspace (all sites) over [from, to], with and without filters. */
export function reportUrls(siteId: string, from: string, to: string): string[] {
  const range = `from=${from}&to=${to}`;
  const v2 = ['summary-v2', 'pages-v2', 'sources-v2', 'campaigns-v2'];
  const filters = ['', '&source=google.com', '&country=US', '&path=/pricing', '&device=mobile', '&internal=include', '&source=google.com&country=US'];
  return [
    `/sites/${siteId}/pageviews?${range}`,
    `/sites/${siteId}/events?${range}`,
    `/sites/${siteId}/sessions?${range}`,
    ...v2.flatMap((report) => filters.map((filter) => `/v1/sites/${siteId}/reports/${report}?${range}&limit=200${filter}`)),
    `/v1/sites/${siteId}/reports/summary-v2?${range}&scope=all-sites`,
    `/v1/sites/${siteId}/reports/pages-v2?${range}&limit=200&include_params=true`,
  ];
}

/** The answers (legacy bodies whole, V2 `data` with `meta.computed_from`), by URL. */
export async function readReports(server: TestServer, urls: string[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const url of urls) {
    const response = await server.request('GET', url);
    expect(response.status, `${url}: ${response.text}`).toBe(200);
    answers[url] = url.includes('-v2') ? { computed_from: response.body.meta.computed_from, data: response.body.data } : response.body;
  }
  return answers;
}

/** Projects until the projector has reached the log's end (a manual projector). */
export function projectAll(server: TestServer): void {
  while (server.app.projection.projectNow({ maxEvents: 7 }).events > 0);
}

/**
 * The URLs whose answer is computed from rollups (the V2 reports say so in meta.computed_from; legacy ones always are).
 * A one-day summary's hourly series is read from the event rows (event_log), so it is not one of them.
 */
export function fromRollups(answers: Record<string, unknown>): string[] {
  return Object.keys(answers).filter((url) => [undefined, 'rollups'].includes((answers[url] as { computed_from?: string }).computed_from));
}
