// GDPR deletion against the shipped server (a child process, its projector on its own thread): two visitors, one of
// them a logged-in user on two devices; the delete takes the user's visits, pageviews and revenue out of the reports
// read right after it, the user's timeline no longer knows it, the other visitor is still counted, and a second delete
// answers zeros. Then SIGTERM drains and exits 0.
import { describe, expect, it } from 'vitest';
import { browserEvent, cleanExit, createSite, ingest, timesOn, useShippedServers, utcDate } from './_server.ts';

const siteId = 'gdpr-e2e';
const day = utcDate(-1);
const at = timesOn(day);
const servers = useShippedServers();

describe('the shipped server', () => {
  it('deletes a user: its devices leave every report read right after, others stay, a repeat answers zeros', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    await ingest(server, '/v1/s2s/events', siteId, [
      browserEvent(siteId, { anon_id: 'dana-phone', ts: at('09:00:00') }),
      browserEvent(siteId, { anon_id: 'dana-phone', ts: at('09:01:00'), user_id: 'dana', type: 'login', url: undefined }),
      browserEvent(siteId, { anon_id: 'dana-laptop', ts: at('12:00:00'), user_id: 'dana' }),
      { ...browserEvent(siteId, { anon_id: 'dana-laptop', ts: at('12:05:00'), user_id: 'dana', type: 'purchase', revenue: { amount: '30.00', currency: 'EUR' } }), url: undefined },
      browserEvent(siteId, { anon_id: 'erin', ts: at('10:00:00') }),
    ]);
    const summary = async () => {
      const answer = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data;
    };
    expect(await summary()).toMatchObject({ visitors: 3, visits: 3, pageviews: 3 });

    const deleted = await server.request('POST', `/v1/sites/${siteId}/gdpr/delete`, { body: { user_id: 'dana' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ deleted_events: 4, deleted_identities: 2 });
    expect(await summary()).toMatchObject({ visitors: 1, visits: 1, pageviews: 1 });
    const timeline = await server.request('GET', `/v1/sites/${siteId}/users/dana/timeline`);
    // No event names the user any more: the timeline does not know it.
    expect(timeline.status, timeline.text).toBe(404);
    expect(timeline.body.error.code).toBe('user_not_found');
    const exported = await server.request('POST', `/v1/sites/${siteId}/gdpr/export`, { body: { user_id: 'dana' } });
    expect(exported.body).toEqual({ subject: { user_id: 'dana' }, identities: [], events: [], quarantined: [] });

    const again = await server.request('POST', `/v1/sites/${siteId}/gdpr/delete`, { body: { user_id: 'dana' } });
    expect(again.body).toEqual({ deleted_events: 0, deleted_identities: 0 });
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
