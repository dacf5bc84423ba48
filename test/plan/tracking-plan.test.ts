// Validation semantics of a compiled tracking plan (CONTRACT section 3; spec "Schema validation of ingest").
import { describe, expect, it } from 'vitest';
import { compileTrackingPlan, type TrackingPlan } from '../../src/plan/tracking-plan.ts';
import { contractBundle, wireEvent } from './fixtures.ts';

const compile = (bundle: unknown): TrackingPlan => compileTrackingPlan(bundle, 'plan.json');

describe('the CONTRACT example plan', () => {
  const plan = compile(contractBundle());

  it('carries the bundle name and version', () => {
    expect(plan.name).toBe('shop');
    expect(plan.version).toBe('1.4.0');
  });

  it.each([
    { name: 'a valid signup', event: { type: 'signup', props: { plan: 'pro' } }, details: [] },
    { name: 'a pageview with any props', event: { type: 'pageview', props: { anything: [1, 2] }, referrer: null }, details: [] },
    {
      name: 'a signup without props.plan points at the missing property',
      event: { type: 'signup', props: {} },
      details: [{ path: '/props/plan', message: 'is required' }],
    },
    { name: 'a signup without props', event: { type: 'signup' }, details: [{ path: '/props', message: 'is required' }] },
    {
      name: 'a plan outside the enum',
      event: { type: 'signup', props: { plan: 'gold' } },
      details: [{ path: '/props/plan', message: 'must be one of "free", "pro"' }],
    },
    {
      name: 'an extra prop points at the extra property',
      event: { type: 'signup', props: { plan: 'free', coupon: 'X1' } },
      details: [{ path: '/props/coupon', message: 'is not an allowed property' }],
    },
    {
      name: 'every problem at once (allErrors)',
      event: { type: 'signup', props: { plan: 'gold', coupon: 'X1' } },
      details: [
        { path: '/props/coupon', message: 'is not an allowed property' },
        { path: '/props/plan', message: 'must be one of "free", "pro"' },
      ],
    },
    { name: 'an undeclared type passes the wildcard', event: { type: 'checkout_started', props: { step: 2 } }, details: [] },
  ])('$name', ({ event, details }) => {
    expect(plan.validate(wireEvent(event))).toEqual(details);
  });

  it('prefixes every pointer (the 4th element of an array body is /3)', () => {
    expect(plan.validate(wireEvent({ type: 'signup', props: { plan: 'gold', coupon: 1 } }), '/3')).toEqual([
      { path: '/3/props/coupon', message: 'is not an allowed property' },
      { path: '/3/props/plan', message: 'must be one of "free", "pro"' },
    ]);
    expect(plan.validate(wireEvent({ type: 'signup', props: {} }), '/0')).toEqual([{ path: '/0/props/plan', message: 'is required' }]);
  });

  it('never changes the event it validates', () => {
    const event = wireEvent({ type: 'signup', props: { plan: 'gold', coupon: 'X1' } });
    const copy = structuredClone(event);
    plan.validate(event);
    expect(event).toEqual(copy);
  });
});

describe('unknown events', () => {
  const { '*': _wildcard, ...declared } = contractBundle().events;
  const plan = compile({ ...contractBundle(), events: declared });

  it('without a wildcard give exactly the unknown-event detail', () => {
    expect(plan.validate(wireEvent({ type: 'checkout_started' }))).toEqual([{ path: '/type', message: 'unknown event' }]);
    expect(plan.validate(wireEvent({ type: 'checkout_started' }), '/7')).toEqual([{ path: '/7/type', message: 'unknown event' }]);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('a type named %s is unknown, not an Object.prototype member', (type) => {
    expect(plan.validate(wireEvent({ type }))).toEqual([{ path: '/type', message: 'unknown event' }]);
  });
});

describe('the envelope', () => {
  it('is removed before validation: id, site_id, anon_id, ts and url never reach the schema', () => {
    const plan = compile({
      plan: 'closed',
      version: '1.0.0',
      events: {
        click: {
          type: 'object',
          additionalProperties: false,
          properties: { type: { const: 'click' }, ts: { type: 'number' }, props: { type: 'object' } },
        },
      },
    });
    // ts is a string on the wire: the plan's own rule for ts never applies, and no envelope field is "additional".
    expect(plan.validate(wireEvent({ type: 'click', props: {} }))).toEqual([]);
  });

  it('is not there to be required', () => {
    const plan = compile({
      plan: 'p',
      version: '1.0.0',
      events: { click: { type: 'object', required: ['id', 'type'], properties: { id: { type: 'string' }, type: { type: 'string' } } } },
    });
    expect(plan.validate(wireEvent({ type: 'click' }))).toEqual([{ path: '/id', message: 'is required' }]);
  });

  it('is the only thing removed: type and unknown top-level fields are validated as sent', () => {
    const plan = compile({
      plan: 'p',
      version: '1.0.0',
      events: { click: { type: 'object', additionalProperties: false, properties: { type: { enum: ['click'] }, props: { type: 'object' } } } },
    });
    expect(plan.validate(wireEvent({ type: 'click', props: {}, future_field: 1, referrer: null }))).toEqual([
      { path: '/future_field', message: 'is not an allowed property' },
      { path: '/referrer', message: 'is not an allowed property' },
    ]);
  });
});

describe('schemas', () => {
  it('may be booleans: false rejects every event of its type, true accepts all', () => {
    const plan = compile({ plan: 'p', version: '1.0.0', events: { legacy_event: false, '*': true } });
    expect(plan.validate(wireEvent({ type: 'legacy_event' }))).toEqual([{ path: '', message: 'boolean schema is false' }]);
    expect(plan.validate(wireEvent({ type: 'anything', props: { a: 1 } }))).toEqual([]);
  });

  it('escape property names in pointers (RFC 6901)', () => {
    const plan = compile({
      plan: 'p',
      version: '1.0.0',
      events: {
        click: {
          type: 'object',
          properties: { props: { type: 'object', required: ['a/b', 'c~d'], properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' } } } },
        },
      },
    });
    expect(plan.validate(wireEvent({ type: 'click', props: {} }))).toEqual([
      { path: '/props/a~1b', message: 'is required' },
      { path: '/props/c~0d', message: 'is required' },
    ]);
  });

  it('assert the supported formats', () => {
    const plan = compile({
      plan: 'p',
      version: '1.0.0',
      events: {
        lead: {
          type: 'object',
          properties: {
            props: {
              type: 'object',
              properties: { email: { type: 'string', format: 'email' }, at: { type: 'string', format: 'date-time' }, day: { type: 'string', format: 'date' } },
            },
          },
        },
      },
    });
    expect(plan.validate(wireEvent({ type: 'lead', props: { email: 'a@b.example', at: '2026-01-15T10:00:00+01:00', day: '2024-02-29' } }))).toEqual([]);
    expect(plan.validate(wireEvent({ type: 'lead', props: { email: 'not an email', at: '2026-01-15 25:00', day: '2023-02-29' } }))).toEqual([
      { path: '/props/email', message: 'must match format "email"' },
      { path: '/props/at', message: 'must match format "date-time"' },
      { path: '/props/day', message: 'must match format "date"' },
    ]);
  });

  it('report numbers, strings and const with their rule', () => {
    const plan = compile({
      plan: 'p',
      version: '1.0.0',
      events: {
        order: {
          type: 'object',
          properties: {
            props: {
              type: 'object',
              properties: { qty: { type: 'integer', minimum: 1 }, sku: { type: 'string', pattern: '^SKU-' }, channel: { const: 'web' } },
            },
          },
        },
      },
    });
    expect(plan.validate(wireEvent({ type: 'order', props: { qty: 0, sku: 'X', channel: 'app' } }))).toEqual([
      { path: '/props/qty', message: 'must be >= 1' },
      { path: '/props/sku', message: 'must match pattern "^SKU-"' },
      { path: '/props/channel', message: 'must be "web"' },
    ]);
  });
});
