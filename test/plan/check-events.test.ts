// Offline checking of recorded events: JSON, then the wire envelope, then the plan, line by line.
import { describe, expect, it } from 'vitest';
import { checkRecordedEvents } from '../../src/plan/check-events.ts';
import { compileTrackingPlan } from '../../src/plan/tracking-plan.ts';
import { contractBundle, wireEvent } from './fixtures.ts';

const plan = compileTrackingPlan(contractBundle(), 'plan.json');
const ndjson = (...lines: unknown[]) => lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');

describe('checkRecordedEvents', () => {
  it('passes good events of any age: recordings are judged by their content, not by when they were made', () => {
    const result = checkRecordedEvents(
      plan,
      ndjson(
        wireEvent({ type: 'signup', props: { plan: 'pro' }, ts: '2019-03-01T08:00:00Z' }),
        wireEvent({ type: 'pageview', ts: '2099-12-31T23:59:59+02:00' }),
      ),
    );
    expect(result).toEqual({ checked: 2, failedEvents: 0, failures: [] });
  });

  it('reports each failure with its 1-based line, skipping blank lines', () => {
    const result = checkRecordedEvents(
      plan,
      ndjson(
        wireEvent({ type: 'signup', props: { plan: 'pro' } }),
        '',
        '   ',
        wireEvent({ type: 'signup', props: { plan: 'gold', coupon: 'X' } }),
        '{"id": ',
        wireEvent({ type: 'pageview', url: null, id: 'not-a-uuid' }),
      ),
    );
    expect(result.checked).toBe(4);
    expect(result.failedEvents).toBe(3);
    expect(result.failures).toEqual([
      { line: 4, path: '/props/coupon', message: 'is not an allowed property' },
      { line: 4, path: '/props/plan', message: 'must be one of "free", "pro"' },
      { line: 5, path: '', message: expect.stringMatching(/^not valid JSON: /) },
      { line: 6, path: '/id', message: 'must be a UUID' },
    ]);
  });

  it('applies the wire rules that do not depend on the clock (a pageview needs its url)', () => {
    const result = checkRecordedEvents(plan, ndjson(wireEvent({ type: 'pageview', url: null })));
    expect(result.failures).toEqual([{ line: 1, path: '/url', message: 'is required for a pageview' }]);
  });

  it('reports both the envelope and the plan when both are wrong', () => {
    const result = checkRecordedEvents(plan, ndjson(wireEvent({ type: 'signup', anon_id: '', props: {} })));
    expect(result.failures).toEqual([
      { line: 1, path: '/anon_id', message: 'must not be empty' },
      { line: 1, path: '/props/plan', message: 'is required' },
    ]);
  });

  it('checks each event of an array line (a recorded request body) with its index in the pointer', () => {
    const result = checkRecordedEvents(plan, ndjson([wireEvent({ type: 'signup', props: { plan: 'pro' } }), wireEvent({ type: 'signup', props: {} })]));
    expect(result).toEqual({ checked: 2, failedEvents: 1, failures: [{ line: 1, path: '/1/props/plan', message: 'is required' }] });
  });

  it('refuses a line that is not an event object', () => {
    const result = checkRecordedEvents(plan, ndjson('"signup"'));
    expect(result.failures).toEqual([{ line: 1, path: '', message: 'must be an event object' }]);
  });

  it('reads Windows line endings', () => {
    const result = checkRecordedEvents(plan, `${JSON.stringify(wireEvent({ type: 'signup', props: {} }))}\r\n\r\n`);
    expect(result.failures).toEqual([{ line: 1, path: '/props/plan', message: 'is required' }]);
  });
});
