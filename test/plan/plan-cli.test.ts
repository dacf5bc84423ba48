// `sightline plan validate|diff|check` as an operator runs them: the bundled CLI in a child process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, parseJsonOutput, runCli } from '../cli/cli-helpers.ts';
import { contractBundle, scratchDirectory, wireEvent } from './fixtures.ts';

const scratch = scratchDirectory('sightline-plan-cli-');
beforeAll(ensureBuilt, 120_000);
afterAll(() => scratch.remove());

/** The contract bundle, version 1.5.0: "team" added to the plan enum (not breaking), seats required (breaking). */
function nextBundle(version: string) {
  const bundle = structuredClone(contractBundle());
  const props = (bundle.events.signup as { properties: { props: { required: string[]; properties: Record<string, unknown> } } }).properties.props;
  props.properties.plan = { enum: ['free', 'pro', 'team'] };
  props.properties.seats = { type: 'integer', minimum: 1 };
  props.required.push('seats');
  return { ...bundle, version };
}

describe('plan validate', () => {
  it('a good bundle: exit 0 and a summary, or JSON', async () => {
    const file = scratch.write('good.json', contractBundle());
    const result = await runCli(['plan', 'validate', file]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`${file}: plan "shop" 1.4.0 is valid: 2 events (pageview, signup) and a wildcard`);

    const json = await runCli(['plan', 'validate', file, '--json']);
    expect(json.code).toBe(0);
    expect(parseJsonOutput(json)).toEqual({ valid: true, file, plan: 'shop', version: '1.4.0', events: ['pageview', 'signup'], wildcard: true });
  });

  it('a broken bundle: exit 1 and every problem with the file and its pointer', async () => {
    const file = scratch.write('broken.json', {
      plan: 'shop',
      version: '1.4.0',
      events: { signup: { type: 'object', properties: { props: { type: 'objekt' } } }, click: { type: 'object', minProperites: 1 } },
    });
    const result = await runCli(['plan', 'validate', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `${file}: /events/signup/properties/props/type: must be equal to one of the allowed values`,
      `${file}: /events/click/minProperites: unknown keyword: "minProperites" (strict mode)`,
    ]);

    const json = await runCli(['plan', 'validate', file, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'invalid_plan',
        message: `${file}: /events/signup/properties/props/type: must be equal to one of the allowed values (and 1 more)`,
        details: [
          { path: '/events/signup/properties/props/type', message: 'must be equal to one of the allowed values' },
          { path: '/events/click/minProperites', message: 'unknown keyword: "minProperites" (strict mode)' },
        ],
      },
    });
  });

  it('a file that is not JSON, or not there: exit 1 naming the file', async () => {
    const file = scratch.write('not-json.json', '{ "plan": ');
    const result = await runCli(['plan', 'validate', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: not valid JSON: `);

    const missing = await runCli(['plan', 'validate', `${scratch.directory}/missing.json`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${scratch.directory}/missing.json: cannot read the file: ENOENT`);
  });
});

describe('plan diff', () => {
  it('breaking changes: each marked BREAKING or ok, exit 1', async () => {
    const before = scratch.write('v1.json', contractBundle());
    const after = scratch.write('v2.json', nextBundle('1.5.0'));
    const result = await runCli(['plan', 'diff', before, after]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      'BREAKING  /events/signup/properties/props/required  required-added: property "seats" is now required',
      'ok        /events/signup/properties/props/properties/plan/enum  enum-values-added: allowed values added: "team"',
      'ok        /events/signup/properties/props/properties/seats  property-added: property "seats" declared; it was rejected as an additional property before',
      'BREAKING  /version  version: breaking changes need a major version bump, but 1.4.0 → 1.5.0 is a minor bump',
      '4 changes, 2 breaking',
    ]);
  });

  it('--json lists the changes; a major bump still exits 1 for the breaking change itself', async () => {
    const before = scratch.write('v1.json', contractBundle());
    const after = scratch.write('v2-major.json', nextBundle('2.0.0'));
    const result = await runCli(['plan', 'diff', before, after, '--json']);
    expect(result.code).toBe(1);
    const body = parseJsonOutput(result);
    expect(body.breaking).toBe(true);
    expect(body.changes.map((change: { kind: string; breaking: boolean }) => [change.kind, change.breaking])).toEqual([
      ['required-added', true],
      ['enum-values-added', false],
      ['property-added', false],
    ]);
  });

  it('only non-breaking changes: exit 0', async () => {
    const before = scratch.write('v1.json', contractBundle());
    const after = scratch.write('v1-minor.json', { ...contractBundle(), version: '1.5.0', events: { ...contractBundle().events, purchase: { type: 'object' } } });
    const result = await runCli(['plan', 'diff', before, after]);
    expect(result.code).toBe(0);
    // The new schema accepts what the wildcard accepted for this type, so nothing else is reported.
    expect(result.stdout.trim().split('\n')).toEqual([
      'ok        /events/purchase  event-added: event "purchase" added (its events were validated by the wildcard before)',
      '1 change, 0 breaking',
    ]);
  });

  it('identical bundles: "No changes", exit 0', async () => {
    const file = scratch.write('same.json', contractBundle());
    const result = await runCli(['plan', 'diff', file, file]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('No changes');
  });

  it('a bundle that does not load: exit 2 with its problem', async () => {
    const before = scratch.write('v1.json', contractBundle());
    const broken = scratch.write('broken-v2.json', { ...contractBundle(), version: 'next' });
    const result = await runCli(['plan', 'diff', before, broken]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${broken}: /version: must be a semantic version such as 1.4.0`);
  });
});

describe('plan check', () => {
  const lines = (...events: unknown[]) => events.map((event) => (typeof event === 'string' ? event : JSON.stringify(event))).join('\n');

  it('good recordings, however old: exit 0 and a summary', async () => {
    const plan = scratch.write('plan.json', contractBundle());
    const events = scratch.write(
      'good.ndjson',
      lines(wireEvent({ type: 'signup', props: { plan: 'pro' }, ts: '2018-05-01T00:00:00Z' }), '', wireEvent({ type: 'newsletter_opened' })) + '\n',
    );
    const result = await runCli(['plan', 'check', plan, '--events', events]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('2 events checked against shop 1.4.0: 2 passed, 0 failed');
  });

  it('failures: one line per problem as "line N: pointer: message", exit 1', async () => {
    const plan = scratch.write('plan.json', contractBundle());
    const events = scratch.write(
      'mixed.ndjson',
      lines(
        wireEvent({ type: 'signup', props: { plan: 'pro' } }),
        wireEvent({ type: 'signup', props: {} }),
        '',
        wireEvent({ type: 'signup', props: { plan: 'gold' }, id: 'nope' }),
        'not json',
      ),
    );
    const result = await runCli(['plan', 'check', plan, '--events', events]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      'line 2: /props/plan: is required',
      'line 4: /id: must be a UUID',
      'line 4: /props/plan: must be one of "free", "pro"',
      expect.stringMatching(/^line 5: not valid JSON: /),
      '4 events checked against shop 1.4.0: 1 passed, 3 failed',
    ]);

    const json = await runCli(['plan', 'check', plan, '--events', events, '--json']);
    expect(json.code).toBe(1);
    const body = parseJsonOutput(json);
    expect(body).toMatchObject({ checked: 4, passed: 1, failed: 3 });
    expect(body.failures[0]).toEqual({ line: 2, path: '/props/plan', message: 'is required' });
  });

  it('a plan without a wildcard reports unknown events', async () => {
    const { '*': _wildcard, ...declared } = contractBundle().events;
    const plan = scratch.write('no-wildcard.json', { ...contractBundle(), events: declared });
    const events = scratch.write('unknown.ndjson', lines(wireEvent({ type: 'newsletter_opened' })));
    const result = await runCli(['plan', 'check', plan, '--events', events]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('line 1: /type: unknown event');
  });

  it('a missing events file or a broken plan: exit 2', async () => {
    const plan = scratch.write('plan.json', contractBundle());
    const missing = await runCli(['plan', 'check', plan, '--events', `${scratch.directory}/none.ndjson`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('none.ndjson: cannot read the file: ENOENT');

    const broken = scratch.write('broken-plan.json', { ...contractBundle(), events: { 'bad key': true } });
    const events = scratch.write('one.ndjson', lines(wireEvent({ type: 'signup' })));
    const result = await runCli(['plan', 'check', broken, '--events', events]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${broken}: /events/bad key: must be "*" or match`);
  });
});
