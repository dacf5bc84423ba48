// A cookieless visitor's event quarantined by the tracking plan keeps its derived anon_id with the dead-letter row
// (the raw event has none and the IP is never kept, so it could not be derived again), and a replay stores it
// under that id.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractBundle } from '../plan/fixtures.ts';
import { makeTempDir, seedWorkspace, startTestServer } from '../_setup.ts';

const withWildcard = contractBundle();
const { '*': _wildcard, ...withoutWildcard } = withWildcard.events;

function writeBundle(content: unknown): string {
  const path = join(makeTempDir('sightline-plan-'), 'plan.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

describe('cookieless events in the dead-letter queue', () => {
  it('replays a quarantined cookieless event under the anon_id derived when it arrived', async () => {
    const dataDir = makeTempDir();
    const strict = await startTestServer({ dataDir, env: { SCHEMA_BUNDLE_PATH: writeBundle({ ...withWildcard, events: withoutWildcard }), SCHEMA_MODE: 'quarantine' } });
    await seedWorkspace(strict, 'plans', { sites: ['shop'] });
    const ts = new Date().toISOString();
    const pageview = { id: crypto.randomUUID(), site_id: 'shop', ts, type: 'pageview', url: 'https://shop.example/' };
    const refund = { id: crypto.randomUUID(), site_id: 'shop', ts, type: 'refund', url: null };
    const answer = await strict.request('POST', '/events', { token: 'shop', body: [pageview, refund], headers: { 'user-agent': firefox } });
    expect(answer.body).toMatchObject({ accepted: 1, quarantined: 1 });
    const derived = (strict.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(pageview.id) as { anon_id: string }).anon_id;
    expect(derived).toMatch(/^cl_/);
    await strict.close();

    const relaxed = await startTestServer({ dataDir, env: { SCHEMA_BUNDLE_PATH: writeBundle(withWildcard), SCHEMA_MODE: 'quarantine' } });
    try {
      const [row] = (await relaxed.request('GET', '/sites/shop/dlq')).body.events;
      expect(row.payload).toEqual(refund);
      const response = await relaxed.request('POST', `/sites/shop/dlq/${row.id}/replay`);
      expect(response.status, response.text).toBe(200);
      expect(relaxed.db.prepare('SELECT anon_id, raw FROM events WHERE id = ?').get(refund.id)).toEqual({ anon_id: derived, raw: JSON.stringify(refund) });
    } finally {
      await relaxed.close();
    }
  });
});
