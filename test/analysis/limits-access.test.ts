// Every limit of the funnel query at its edge (1 and 13 steps refused, 2 and 12 accepted; a 90-day window accepted,
// one minute more refused; 367 days of range, 368 refused; 20 filter values, 21 refused), the malformed bodies, and
// the access rules of all three analysis routes: 401 without credentials, a foreign workspace's key gets the same
// 404 bytes as a missing workspace, a foreign or missing site_id the same 404, a key without query:read 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock, prefixes } from '../admin/_helpers.ts';
import { funnelRowsTableSql, funnelScanSql } from '../../src/read-model/sqlite/queries/funnel-rows.ts';
import { bindingsOfAnonsSql, bindingsOfVisitorsSql } from '../../src/read-model/sqlite/queries/identities-as-of.ts';
import * as v from 'valibot';
import { FunnelQueryBody, toFunnelQuery } from '../../src/analysis/funnel-query.ts';
import { readPopulation } from '../../src/analysis/population.ts';
import { createSqliteReadModel } from '../../src/read-model/sqlite/sqlite-read-model.ts';
import { findWorkspaceBySlug } from '../../src/tenants/queries/find-workspace.ts';
import { readProjectorPosition } from '../../src/projector/queries/projector-state.ts';
import { ApiError } from '../../src/http/errors.ts';
import { at, expectRefusal, funnelOk, funnelPath, funnelQuery, postEvents } from './_funnel-helpers.ts';

let server: TestServer;
let readKey: string;
let adminKey: string;
let ingestKey: string;
let foreignKey: string;
const steps = (count: number) => Array.from({ length: count }, (_, index) => ({ type: index % 2 === 0 ? 'pageview' : 'signup' }));
const base = () => funnelQuery({ site: 'l-site', steps: steps(2) });

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
  readKey = (await seedWorkspace(server, 'lim', { sites: ['l-site'], scopes: ['query:read'] })).key!;
  adminKey = (await server.request('POST', '/workspaces/lim/keys', { body: { label: 'admin', scopes: ['admin'] } })).body.plaintext;
  ingestKey = (await server.request('POST', '/workspaces/lim/keys', { body: { label: 'ingest', scopes: ['ingest:write'] } })).body.plaintext;
  foreignKey = (await seedWorkspace(server, 'lim-other', { sites: ['l-foreign'], scopes: ['query:read', 'admin'] })).key!;
  await postEvents(server, [
    ...Array.from({ length: 12 }, (_, index) => ({ site: 'l-site', anon: 'twelve', ts: at(index), type: index % 2 === 0 ? 'pageview' : 'signup' })),
    { site: 'l-foreign', anon: 'x', ts: at(0) },
  ]);
});
afterAll(() => server.close());

const post = (body: unknown, token?: string | null, path = funnelPath('lim')) => server.request('POST', path, { body, token });

describe('steps: 2 to 12', () => {
  it.each([1, 13, 0])('refuses %i steps with invalid_payload at /steps', async (count) => {
    expectRefusal(await post({ ...base(), steps: steps(count) }), 400, 'invalid_payload', '/steps');
  });

  it.each([2, 12])('accepts %i steps', async (count) => {
    const body = await funnelOk(server, 'lim', { ...base(), steps: steps(count) });
    expect(body.data.steps).toHaveLength(count);
    // "twelve" does the 12 steps in order.
    expect(body.data.steps[count - 1].count).toBe(1);
  });
});

describe('window: at most 90 days', () => {
  it.each([
    [{ value: 90, unit: 'days' }],
    [{ value: 2160, unit: 'hours' }],
    [{ value: 129_600, unit: 'minutes' }],
    [{ value: 1, unit: 'minutes' }],
  ])('accepts %j', async (window) => {
    await funnelOk(server, 'lim', { ...base(), window });
  });

  it.each([
    [{ value: 91, unit: 'days' }, '/window/value'],
    [{ value: 2161, unit: 'hours' }, '/window/value'],
    [{ value: 129_601, unit: 'minutes' }, '/window/value'],
    [{ value: 0, unit: 'days' }, '/window/value'],
    [{ value: 1.5, unit: 'days' }, '/window/value'],
    [{ value: 1, unit: 'seconds' }, '/window/unit'],
  ])('refuses %j', async (window, path) => {
    expectRefusal(await post({ ...base(), window }), 400, 'invalid_payload', path);
  });
});

describe('range, dates and filters', () => {
  it('accepts 367 inclusive days and refuses 368 with range_too_large', async () => {
    await funnelOk(server, 'lim', { ...base(), from: '2025-03-19', to: '2026-03-20' });
    expectRefusal(await post({ ...base(), from: '2025-03-18', to: '2026-03-20' }), 400, 'range_too_large', '/to');
  });

  it.each([
    ['from', '2026-02-30', 'invalid_date_param', '/from'],
    ['to', '2026/03/20', 'invalid_date_param', '/to'],
    ['from', '2026-03-21', 'invalid_date_range', '/from'],
  ])('%s = %s → %s', async (name, value, code, path) => {
    expectRefusal(await post({ ...base(), to: '2026-03-20', [name]: value }), 400, code, path);
  });

  it.each(['device', 'browser', 'os', 'country', 'region', 'city', 'path'])('%s takes 20 values and refuses 21 with too_many_values', async (name) => {
    const values = (count: number) => Array.from({ length: count }, (_, index) => `v${index}`);
    const accepted = await funnelOk(server, 'lim', { ...base(), [name]: values(20) });
    expect(accepted.meta.filters[name]).toHaveLength(20);
    expectRefusal(await post({ ...base(), [name]: values(21) }), 400, 'too_many_values', `/${name}`);
  });

  it('takes 20 props on a step and refuses 21; filter values of 512 characters and refuses 513', async () => {
    const props = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, index]));
    await funnelOk(server, 'lim', { ...base(), steps: [{ type: 'pageview', props: props(20) }, { type: 'signup' }] });
    expectRefusal(await post({ ...base(), steps: [{ type: 'pageview', props: props(21) }, { type: 'signup' }] }), 400, 'invalid_payload', '/steps/0/props');
    await funnelOk(server, 'lim', { ...base(), city: ['x'.repeat(512)] });
    expectRefusal(await post({ ...base(), city: ['x'.repeat(513)] }), 400, 'invalid_payload', '/city/0');
    expectRefusal(await post({ ...base(), city: [] }), 400, 'invalid_payload', '/city');
  });

  it.each([
    ['both site_id and scope', { scope: 'all-sites' }, '/site_id'],
    ['neither site_id nor scope', { site_id: undefined }, '/site_id'],
    ['an unknown scope', { site_id: undefined, scope: 'everything' }, '/scope'],
    ['an unknown field', { colour: 'red' }, '/colour'],
    ['a step without type', { steps: [{ path: '/' }, { type: 'signup' }] }, '/steps/0/type'],
    ['a step with a nested prop', { steps: [{ type: 'a', props: { x: { y: 1 } } }, { type: 'b' }] }, '/steps/0/props/x'],
    ['an unknown breakdown', { breakdown: 'city' }, '/breakdown'],
    ['an unknown date_mode', { date_mode: 'any_step' }, '/date_mode'],
    ['internal neither include nor exclude', { internal: 'only' }, '/internal'],
  ])('refuses %s with invalid_payload', async (_name, change, path) => {
    expectRefusal(await post({ ...base(), ...change }), 400, 'invalid_payload', path);
  });

  it('refuses a body that is not JSON, or not application/json', async () => {
    const invalid = await server.request('POST', funnelPath('lim'), { rawBody: '{', headers: { 'content-type': 'application/json' } });
    expectRefusal(invalid, 400, 'invalid_json');
    const text = await server.request('POST', funnelPath('lim'), { rawBody: '{}', headers: { 'content-type': 'text/plain' } });
    expectRefusal(text, 415, 'unsupported_media_type');
  });
});

describe('access, on every analysis route and both prefixes', () => {
  const panels = [undefined, 'correlation', 'explanation'] as const;
  let executionId: string;
  beforeAll(async () => {
    executionId = (await funnelOk(server, 'lim', base())).data.execution_id;
  });
  const bodyOf = (panel: (typeof panels)[number]) => (panel ? { query: base(), transition: { from_step: 1, to_step: 2 }, execution_id: executionId } : base());

  for (const panel of panels) {
    for (const prefix of prefixes) {
      const name = `${prefix}${funnelPath('lim', panel)}`;
      it(`${name}: admin token, an admin key and a query:read key of the workspace get 200`, async () => {
        for (const token of [undefined, adminKey, readKey]) {
          const response = await post(bodyOf(panel), token, `${prefix}${funnelPath('lim', panel)}`);
          expect(response.status, response.text).toBe(200);
        }
      });

      it(`${name}: 401 without or with a wrong credential`, async () => {
        expectRefusal(await post(bodyOf(panel), null, `${prefix}${funnelPath('lim', panel)}`), 401, 'unauthorized');
        expectRefusal(await post(bodyOf(panel), 'sk_nope', `${prefix}${funnelPath('lim', panel)}`), 401, 'unauthorized');
      });

      it(`${name}: 403 for a key of the workspace without query:read`, async () => {
        expectRefusal(await post(bodyOf(panel), ingestKey, `${prefix}${funnelPath('lim', panel)}`), 403, 'forbidden_scope');
      });

      it(`${name}: a foreign workspace is the same 404 as a missing one, before the body is read`, async () => {
        const foreign = await post(bodyOf(panel), foreignKey, `${prefix}${funnelPath('lim', panel)}`);
        const missing = await post(bodyOf(panel), foreignKey, `${prefix}${funnelPath('nope', panel)}`);
        const missingForAdmin = await post({}, undefined, `${prefix}${funnelPath('nope', panel)}`);
        expectRefusal(foreign, 404, 'not_found');
        expect(foreign.text).toBe(missing.text);
        expect(foreign.text).toBe(missingForAdmin.text);
      });

      it(`${name}: a site_id of another workspace is the same 404 as a missing site`, async () => {
        const withSite = (site: string) => {
          const query = { ...base(), site_id: site };
          return panel ? { query, transition: { from_step: 1, to_step: 2 }, execution_id: executionId } : query;
        };
        const foreign = await post(withSite('l-foreign'), undefined, `${prefix}${funnelPath('lim', panel)}`);
        const missing = await post(withSite('l-missing'), undefined, `${prefix}${funnelPath('lim', panel)}`);
        expectRefusal(foreign, 404, 'not_found');
        expect(foreign.text).toBe(missing.text);
        // The foreign workspace's own key cannot reach its site through this workspace either.
        const throughOther = await post(withSite('l-foreign'), foreignKey, `${prefix}${funnelPath('lim', panel)}`);
        expect(throughOther.status).toBe(404);
      });
    }
  }

  it('all-sites over a workspace without sites answers zeros', async () => {
    await seedWorkspace(server, 'lim-empty');
    const body = await funnelOk(server, 'lim-empty', funnelQuery({ allSites: true, steps: steps(2) }));
    expect(body.data.steps.map((step: any) => step.count)).toEqual([0, 0]);
    expect(body.meta.freshness).toEqual({ watermark: null, projected_through: null });
  });

  it('all-sites counts only the workspace’s own sites', async () => {
    const body = await funnelOk(server, 'lim', funnelQuery({ allSites: true, steps: steps(2) }));
    // The foreign site's person "x" is not counted.
    expect(body.data.steps[0].count).toBe(1);
  });
});

describe('query plan', () => {
  it('scans a funnel’s events once through (site_id, ts) in order, and each one’s visitor by seq, never a scan or a sort', () => {
    const step = (index: number) => ({ [`type${index}`]: 'pageview', [`path${index}`]: null, [`prefix${index}`]: 0 });
    const params = { site_id: 'l-site', start_ms: 0, end_ms: 1, range_end_ms: 1, max_seq: 10, with_internal: 0, limit: 10, ts_base: 0, filter0: '["x"]', ...step(0), ...step(1) };
    const steps = [{ type: 'pageview', path: null, prefix: false }, { type: 'pageview', path: null, prefix: false }];
    server.db.exec(funnelRowsTableSql);
    for (const scan of [
      { steps, filters: [], propsSteps: [], startColumn: null },
      { steps, filters: [{ column: 'browser' as const, values: ['x'] }], propsSteps: [1], startColumn: 'os' as const },
    ]) {
      const details = (server.db.prepare(`EXPLAIN QUERY PLAN ${funnelScanSql(scan)}`).all(params) as { detail: string }[]).map((row) => row.detail);
      expect(details.filter((detail) => /^(SEARCH|SCAN) (events|e|ev)\b/.test(detail))).toEqual([
        'SEARCH e USING INDEX events_by_site_ts (site_id=? AND ts>? AND ts<?)',
        'SEARCH ev USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN',
      ]);
      expect(details.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
    }
  });

  it('looks up the bindings of the visitor numbers read through report_visitors_by_vid', () => {
    const details = (server.db.prepare(`EXPLAIN QUERY PLAN ${bindingsOfVisitorsSql}`).all({ site_id: 'l-site', vids: '[1]' }) as { detail: string }[]).map((row) => row.detail);
    expect(details.filter((detail) => /^(SEARCH|SCAN) (rv|i)\b/.test(detail))).toEqual([
      'SEARCH rv USING COVERING INDEX report_visitors_by_vid (vid=? AND site_id=?)',
      'SEARCH i USING PRIMARY KEY (site_id=? AND anon_id=?)',
    ]);
  });

  it('looks up the identity bindings of the anon_ids read, never all of the site’s', () => {
    const details = (server.db.prepare(`EXPLAIN QUERY PLAN ${bindingsOfAnonsSql}`).all({ site_id: 'l-site', anon_ids: '["a"]' }) as { detail: string }[]).map((row) => row.detail);
    expect(details.filter((detail) => /^(SEARCH|SCAN) identities/.test(detail))).toEqual(['SEARCH identities USING PRIMARY KEY (site_id=? AND anon_id=?)']);
  });
});

describe('events held in memory', () => {
  it('reads up to its cap of events and refuses one more with range_too_large (the server’s memory is bounded)', async () => {
    await server.projected();
    const watermarkSeq = readProjectorPosition(server.db);
    // This connection's read model, without the wait for the projector (it has passed everything).
    const readModel = createSqliteReadModel({ db: server.db, waitForProjection: async () => true });
    const scope = { siteIds: ['l-site'], workspaceId: findWorkspaceBySlug(server.db, 'lim')!.id };
    // A breakdown and a props step keep more of each row: the cap is decided on the scan, before anything is read back.
    for (const body of [base(), { ...base(), breakdown: 'browser' }, funnelQuery({ site: 'l-site', steps: [{ type: 'pageview', props: { plan: 'pro' } }, { type: 'signup' }] })]) {
      const query = toFunnelQuery(v.parse(FunnelQueryBody, body), '');
      const read = async (maxEvents: number) => (await readPopulation(readModel, { scope, query, asOf: watermarkSeq, maxEvents })).people;
      // "twelve" has 12 events of the steps' types.
      await expect(read(12), JSON.stringify(body)).resolves.toBeInstanceOf(Array);
      for (const cap of [11, 5]) {
        let refusal: unknown;
        try {
          await read(cap);
        } catch (error) {
          refusal = error;
        }
        expect(refusal, JSON.stringify(body)).toBeInstanceOf(ApiError);
        expect(refusal).toMatchObject({ status: 400, code: 'range_too_large', details: [{ path: '/to' }] });
      }
    }
    expect((await readPopulation(readModel, { scope, query: toFunnelQuery(v.parse(FunnelQueryBody, base()), ''), asOf: watermarkSeq, maxEvents: 12 })).people.map((person) => person.depth)).toEqual([2]);
    // The connection is free again: the iteration was closed.
    expect(readProjectorPosition(server.db)).toBe(watermarkSeq);
  });
});
