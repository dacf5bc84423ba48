// The plan diff as a table: every rule on both sides (breaking and not), then the version check.
import { describe, expect, it } from 'vitest';
import type { TrackingPlanBundle } from '../../src/plan/bundle.ts';
import { diffTrackingPlans } from '../../src/plan/plan-diff.ts';
import type { PlanChange } from '../../src/plan/plan-change.ts';
import { compileTrackingPlan } from '../../src/plan/tracking-plan.ts';
import { contractBundle } from './fixtures.ts';

type Schema = boolean | Record<string, unknown>;
type Expected = Pick<PlanChange, 'path' | 'kind' | 'breaking'>;

/** Two bundles with the given events; the major bump keeps the version check out of the schema scenarios. */
function bundles(oldEvents: Record<string, Schema>, newEvents: Record<string, Schema>): [TrackingPlanBundle, TrackingPlanBundle] {
  return [
    { plan: 'shop', version: '1.0.0', events: oldEvents },
    { plan: 'shop', version: '2.0.0', events: newEvents },
  ];
}

/** The changes without messages (messages are checked separately). */
const summary = (changes: PlanChange[]): Expected[] => changes.map(({ path, kind, breaking }) => ({ path, kind, breaking }));

/** A scenario on one event's schema ("e" under "click"): paths are relative to /events/click. */
interface SchemaScenario {
  name: string;
  old: Schema;
  new: Schema;
  changes: [path: string, kind: string, breaking: boolean][];
}

const obj = (properties: Record<string, Schema>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const prop = (schema: Schema) => obj({ props: { type: 'object', properties: { p: schema } } });
const P = '/properties/props/properties/p';

const boundScenarios: SchemaScenario[] = [
  ['minimum', 'number', 1, 2, 'lower'],
  ['exclusiveMinimum', 'number', 1, 2, 'lower'],
  ['minLength', 'string', 1, 2, 'lower'],
  ['minItems', 'array', 1, 2, 'lower'],
  ['maximum', 'number', 2, 1, 'upper'],
  ['exclusiveMaximum', 'number', 2, 1, 'upper'],
  ['maxLength', 'string', 2, 1, 'upper'],
  ['maxItems', 'array', 2, 1, 'upper'],
].flatMap(([keyword, type, loose, tight]) => {
  const at = `${P}/${keyword}`;
  const schema = (bound?: unknown) => prop({ type, ...(bound === undefined ? {} : { [keyword as string]: bound }) });
  return [
    { name: `${keyword} added`, old: schema(), new: schema(tight), changes: [[at, 'constraint-added', true]] },
    { name: `${keyword} removed`, old: schema(tight), new: schema(), changes: [[at, 'constraint-removed', false]] },
    { name: `${keyword} tightened`, old: schema(loose), new: schema(tight), changes: [[at, 'constraint-tightened', true]] },
    { name: `${keyword} loosened`, old: schema(tight), new: schema(loose), changes: [[at, 'constraint-loosened', false]] },
  ] satisfies SchemaScenario[];
});

const schemaScenarios: SchemaScenario[] = [
  { name: 'no change', old: prop({ type: 'string' }), new: prop({ type: 'string' }), changes: [] },
  { name: 'true and {} are the same schema', old: obj({ a: true }), new: obj({ a: {} }), changes: [] },
  // type
  { name: 'type narrowed', old: prop({ type: ['string', 'number'] }), new: prop({ type: 'string' }), changes: [[`${P}/type`, 'type-narrowed', true]] },
  { name: 'type number narrowed to integer', old: prop({ type: 'number' }), new: prop({ type: 'integer' }), changes: [[`${P}/type`, 'type-narrowed', true]] },
  { name: 'type changed', old: prop({ type: 'string' }), new: prop({ type: 'number' }), changes: [[`${P}/type`, 'type-changed', true]] },
  { name: 'type widened with null', old: prop({ type: 'string' }), new: prop({ type: ['string', 'null'] }), changes: [[`${P}/type`, 'type-widened', false]] },
  { name: 'type integer widened to number', old: prop({ type: 'integer' }), new: prop({ type: 'number' }), changes: [[`${P}/type`, 'type-widened', false]] },
  { name: 'type added', old: prop({}), new: prop({ type: 'string' }), changes: [[`${P}/type`, 'type-added', true]] },
  { name: 'type removed', old: prop({ type: 'string' }), new: prop({}), changes: [[`${P}/type`, 'type-removed', false]] },
  // required
  { name: 'required entry added', old: obj({ a: {}, b: {} }, { required: ['a'] }), new: obj({ a: {}, b: {} }, { required: ['a', 'b'] }), changes: [['/required', 'required-added', true]] },
  { name: 'required added where there was none', old: obj({ a: {} }), new: obj({ a: {} }, { required: ['a'] }), changes: [['/required', 'required-added', true]] },
  { name: 'required entry removed', old: obj({ a: {}, b: {} }, { required: ['a', 'b'] }), new: obj({ a: {}, b: {} }, { required: ['b'] }), changes: [['/required', 'required-removed', false]] },
  { name: 'dependentRequired entry added', old: obj({ a: {}, b: {} }), new: obj({ a: {}, b: {} }, { dependentRequired: { a: ['b'] } }), changes: [['/dependentRequired/a', 'required-added', true]] },
  { name: 'dependentRequired entry removed', old: obj({ a: {}, b: {} }, { dependentRequired: { a: ['b'] } }), new: obj({ a: {}, b: {} }), changes: [['/dependentRequired/a', 'required-removed', false]] },
  // enum and const
  { name: 'enum values removed', old: prop({ enum: ['free', 'pro'] }), new: prop({ enum: ['pro'] }), changes: [[`${P}/enum`, 'enum-values-removed', true]] },
  { name: 'enum values added', old: prop({ enum: ['free', 'pro'] }), new: prop({ enum: ['free', 'pro', 'team'] }), changes: [[`${P}/enum`, 'enum-values-added', false]] },
  { name: 'enum values swapped', old: prop({ enum: ['a', 'b'] }), new: prop({ enum: ['a', 'c'] }), changes: [[`${P}/enum`, 'enum-values-removed', true], [`${P}/enum`, 'enum-values-added', false]] },
  { name: 'enum reordered', old: prop({ enum: ['a', 'b'] }), new: prop({ enum: ['b', 'a'] }), changes: [] },
  { name: 'enum added', old: prop({ type: 'string' }), new: prop({ type: 'string', enum: ['a'] }), changes: [[`${P}/enum`, 'enum-added', true]] },
  { name: 'enum removed', old: prop({ type: 'string', enum: ['a'] }), new: prop({ type: 'string' }), changes: [[`${P}/enum`, 'enum-removed', false]] },
  { name: 'const changed', old: prop({ const: 'web' }), new: prop({ const: 'app' }), changes: [[`${P}/const`, 'const-changed', true]] },
  { name: 'const added', old: prop({ type: 'string' }), new: prop({ type: 'string', const: 'web' }), changes: [[`${P}/const`, 'const-added', true]] },
  { name: 'const removed', old: prop({ type: 'string', const: 'web' }), new: prop({ type: 'string' }), changes: [[`${P}/const`, 'const-removed', false]] },
  { name: 'const widened to an enum that keeps it', old: prop({ const: 'web' }), new: prop({ enum: ['web', 'app'] }), changes: [[`${P}/enum`, 'enum-values-added', false]] },
  // additionalProperties
  { name: 'additionalProperties absent → false', old: obj({ a: {} }), new: obj({ a: {} }, { additionalProperties: false }), changes: [['/additionalProperties', 'additional-properties-forbidden', true]] },
  { name: 'additionalProperties true → false', old: obj({ a: {} }, { additionalProperties: true }), new: obj({ a: {} }, { additionalProperties: false }), changes: [['/additionalProperties', 'additional-properties-forbidden', true]] },
  { name: 'additionalProperties false → true', old: obj({ a: {} }, { additionalProperties: false }), new: obj({ a: {} }, { additionalProperties: true }), changes: [['/additionalProperties', 'additional-properties-allowed', false]] },
  { name: 'additionalProperties false → absent', old: obj({ a: {} }, { additionalProperties: false }), new: obj({ a: {} }), changes: [['/additionalProperties', 'additional-properties-allowed', false]] },
  { name: 'additionalProperties absent → true is no change', old: obj({ a: {} }), new: obj({ a: {} }, { additionalProperties: true }), changes: [] },
  { name: 'additionalProperties true → a schema', old: obj({}), new: obj({}, { additionalProperties: { type: 'string' } }), changes: [['/additionalProperties', 'additional-properties-constrained', true]] },
  { name: 'additionalProperties schema narrowed', old: obj({}, { additionalProperties: { type: ['string', 'number'] } }), new: obj({}, { additionalProperties: { type: 'string' } }), changes: [['/additionalProperties/type', 'type-narrowed', true]] },
  // properties against additionalProperties
  { name: 'new constrained property where additional properties were allowed', old: obj({}), new: obj({ plan: { type: 'string' } }), changes: [['/properties/plan', 'property-added', true]] },
  { name: 'new unconstrained property where additional properties were allowed', old: obj({}), new: obj({ plan: { description: 'free text' } }), changes: [['/properties/plan', 'property-added', false]] },
  { name: 'new property where additional properties were forbidden', old: obj({}, { additionalProperties: false }), new: obj({ plan: { type: 'string' } }, { additionalProperties: false }), changes: [['/properties/plan', 'property-added', false]] },
  { name: 'new property where additional properties had a looser schema', old: obj({}, { additionalProperties: { type: ['string', 'number'] } }), new: obj({ plan: { type: 'string' } }, { additionalProperties: { type: ['string', 'number'] } }), changes: [['/properties/plan/type', 'type-narrowed', true]] },
  { name: 'property removed while additionalProperties is false', old: obj({ plan: {} }, { additionalProperties: false }), new: obj({}, { additionalProperties: false }), changes: [['/properties/plan', 'property-removed', true]] },
  { name: 'property removed while additional properties are allowed', old: obj({ plan: { type: 'string' } }), new: obj({}), changes: [['/properties/plan', 'property-removed', false]] },
  { name: 'property removed while unevaluatedProperties is false', old: obj({ plan: {} }, { unevaluatedProperties: false }), new: obj({}, { unevaluatedProperties: false }), changes: [['/properties/plan', 'property-removed', true]] },
  { name: 'new property no pattern matches, additional properties forbidden', old: obj({}, { additionalProperties: false, patternProperties: { '^x_': { type: 'string' } } }), new: obj({ plan: { type: 'string' } }, { additionalProperties: false, patternProperties: { '^x_': { type: 'string' } } }), changes: [['/properties/plan', 'property-added', false]] },
  { name: 'property removed that a constraining pattern now matches', old: obj({ x_a: { type: 'string' } }, { additionalProperties: false }), new: obj({}, { additionalProperties: false, patternProperties: { '^x_': { type: 'string' } } }), changes: [['/properties/x_a', 'unclassified', true], ['/patternProperties/^x_', 'constraint-added', true]] },
  { name: 'property removed that an open pattern now matches', old: obj({ x_a: { type: 'string' } }, { additionalProperties: false }), new: obj({}, { additionalProperties: false, patternProperties: { '^x_': true } }), changes: [['/properties/x_a', 'property-removed', false], ['/patternProperties/^x_', 'constraint-added', false]] },
  { name: 'patternProperties entry removed while additional properties are forbidden', old: obj({}, { additionalProperties: false, patternProperties: { '^x_': true } }), new: obj({}, { additionalProperties: false }), changes: [['/patternProperties/^x_', 'constraint-removed', true]] },
  { name: 'patternProperties entry added', old: obj({}), new: obj({}, { patternProperties: { '^x_': { type: 'string' } } }), changes: [['/patternProperties/^x_', 'constraint-added', true]] },
  { name: 'patternProperties entry removed', old: obj({}, { patternProperties: { '^x_': { type: 'string' } } }), new: obj({}), changes: [['/patternProperties/^x_', 'constraint-removed', false]] },
  // other constraints
  ...boundScenarios,
  { name: 'pattern added', old: prop({ type: 'string' }), new: prop({ type: 'string', pattern: '^a' }), changes: [[`${P}/pattern`, 'constraint-added', true]] },
  { name: 'pattern removed', old: prop({ type: 'string', pattern: '^a' }), new: prop({ type: 'string' }), changes: [[`${P}/pattern`, 'constraint-removed', false]] },
  { name: 'pattern changed', old: prop({ type: 'string', pattern: '^a' }), new: prop({ type: 'string', pattern: '^[ab]' }), changes: [[`${P}/pattern`, 'constraint-changed', true]] },
  { name: 'format added', old: prop({ type: 'string' }), new: prop({ type: 'string', format: 'email' }), changes: [[`${P}/format`, 'constraint-added', true]] },
  { name: 'format removed', old: prop({ type: 'string', format: 'email' }), new: prop({ type: 'string' }), changes: [[`${P}/format`, 'constraint-removed', false]] },
  { name: 'format changed', old: prop({ type: 'string', format: 'uri' }), new: prop({ type: 'string', format: 'uri-reference' }), changes: [[`${P}/format`, 'constraint-changed', true]] },
  { name: 'multipleOf added', old: prop({ type: 'number' }), new: prop({ type: 'number', multipleOf: 5 }), changes: [[`${P}/multipleOf`, 'constraint-added', true]] },
  { name: 'multipleOf removed', old: prop({ type: 'number', multipleOf: 5 }), new: prop({ type: 'number' }), changes: [[`${P}/multipleOf`, 'constraint-removed', false]] },
  { name: 'multipleOf to a divisor', old: prop({ type: 'number', multipleOf: 10 }), new: prop({ type: 'number', multipleOf: 5 }), changes: [[`${P}/multipleOf`, 'constraint-loosened', false]] },
  { name: 'multipleOf to a multiple', old: prop({ type: 'number', multipleOf: 5 }), new: prop({ type: 'number', multipleOf: 10 }), changes: [[`${P}/multipleOf`, 'constraint-changed', true]] },
  { name: 'uniqueItems added', old: prop({ type: 'array' }), new: prop({ type: 'array', uniqueItems: true }), changes: [[`${P}/uniqueItems`, 'constraint-added', true]] },
  { name: 'uniqueItems removed', old: prop({ type: 'array', uniqueItems: true }), new: prop({ type: 'array' }), changes: [[`${P}/uniqueItems`, 'constraint-removed', false]] },
  // recursion into items and prefixItems
  { name: 'items narrowed', old: prop({ type: 'array', items: { type: 'string' } }), new: prop({ type: 'array', items: { type: 'string', maxLength: 5 } }), changes: [[`${P}/items/maxLength`, 'constraint-added', true]] },
  { name: 'items widened', old: prop({ type: 'array', items: { type: 'string' } }), new: prop({ type: 'array', items: { type: ['string', 'null'] } }), changes: [[`${P}/items/type`, 'type-widened', false]] },
  { name: 'items added', old: prop({ type: 'array' }), new: prop({ type: 'array', items: { type: 'string' } }), changes: [[`${P}/items/type`, 'type-added', true]] },
  { name: 'items false (tuple closed)', old: prop({ type: 'array', prefixItems: [{ type: 'string' }] }), new: prop({ type: 'array', prefixItems: [{ type: 'string' }], items: false }), changes: [[`${P}/items`, 'schema-false', true]] },
  { name: 'items false lifted', old: prop({ type: 'array', prefixItems: [{ type: 'string' }], items: false }), new: prop({ type: 'array', prefixItems: [{ type: 'string' }] }), changes: [[`${P}/items`, 'schema-loosened', false]] },
  { name: 'prefixItems entry narrowed', old: prop({ type: 'array', prefixItems: [{ type: ['string', 'null'] }] }), new: prop({ type: 'array', prefixItems: [{ type: 'string' }] }), changes: [[`${P}/prefixItems/0/type`, 'type-narrowed', true]] },
  { name: 'prefixItems entry added over open items', old: prop({ type: 'array', prefixItems: [{ type: 'string' }] }), new: prop({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }), changes: [[`${P}/prefixItems/1/type`, 'type-added', true]] },
  { name: 'prefixItems entry added where items allowed it', old: prop({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } }), new: prop({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'number' } }), changes: [] },
  // composition
  { name: 'anyOf alternative added', old: prop({ anyOf: [{ type: 'string' }] }), new: prop({ anyOf: [{ type: 'string' }, { type: 'null' }] }), changes: [[`${P}/anyOf/1`, 'constraint-loosened', false]] },
  { name: 'anyOf alternative removed', old: prop({ anyOf: [{ type: 'string' }, { type: 'null' }] }), new: prop({ anyOf: [{ type: 'string' }] }), changes: [[`${P}/anyOf/1`, 'constraint-tightened', true]] },
  { name: 'allOf entry added', old: prop({ type: 'string', allOf: [{ minLength: 1 }] }), new: prop({ type: 'string', allOf: [{ minLength: 1 }, { maxLength: 9 }] }), changes: [[`${P}/allOf/1`, 'constraint-added', true]] },
  { name: 'allOf entry loosened', old: prop({ type: 'string', allOf: [{ minLength: 2 }] }), new: prop({ type: 'string', allOf: [{ minLength: 1 }] }), changes: [[`${P}/allOf/0/minLength`, 'constraint-loosened', false]] },
  { name: 'oneOf added', old: prop({}), new: prop({ oneOf: [{ type: 'string' }, { type: 'number' }] }), changes: [[`${P}/oneOf`, 'constraint-added', true]] },
  { name: 'oneOf removed', old: prop({ oneOf: [{ type: 'string' }, { type: 'number' }] }), new: prop({}), changes: [[`${P}/oneOf`, 'constraint-removed', false]] },
  { name: 'oneOf changed cannot be classified', old: prop({ oneOf: [{ type: 'string' }, { type: 'number' }] }), new: prop({ oneOf: [{ type: 'string' }, { type: 'integer' }] }), changes: [[`${P}/oneOf`, 'unclassified', true]] },
  { name: '$ref changed cannot be classified', old: obj({ a: { $ref: '#/$defs/x' } }, { $defs: { x: {}, y: {} } }), new: obj({ a: { $ref: '#/$defs/y' } }, { $defs: { x: {}, y: {} } }), changes: [['/properties/a/$ref', 'unclassified', true]] },
  { name: 'a $defs entry narrowed', old: obj({ a: { $ref: '#/$defs/x' } }, { $defs: { x: { type: ['string', 'null'] } } }), new: obj({ a: { $ref: '#/$defs/x' } }, { $defs: { x: { type: 'string' } } }), changes: [['/$defs/x/type', 'type-narrowed', true]] },
  { name: 'then narrowed under the same if', old: obj({ a: {} }, { if: { required: ['a'] }, then: { required: [] } }), new: obj({ a: {} }, { if: { required: ['a'] }, then: { minProperties: 2 } }), changes: [['/then/minProperties', 'constraint-added', true]] },
  { name: 'if changed cannot be classified', old: obj({ a: {}, b: {} }, { if: { required: ['a'] }, then: { minProperties: 2 } }), new: obj({ a: {}, b: {} }, { if: { required: ['b'] }, then: { minProperties: 2 } }), changes: [['/if', 'unclassified', true]] },
  { name: 'not added', old: prop({ type: 'string' }), new: prop({ type: 'string', not: { const: '' } }), changes: [[`${P}/not`, 'constraint-added', true]] },
  { name: 'not removed', old: prop({ type: 'string', not: { const: '' } }), new: prop({ type: 'string' }), changes: [[`${P}/not`, 'constraint-removed', false]] },
  { name: 'not changed cannot be classified', old: prop({ type: 'string', not: { const: '' } }), new: prop({ type: 'string', not: { const: 'x' } }), changes: [[`${P}/not`, 'unclassified', true]] },
  { name: 'annotations do not break anything', old: prop({ type: 'string', description: 'plan' }), new: prop({ type: 'string', description: 'the plan', examples: ['pro'] }), changes: [[`${P}/description`, 'annotation-changed', false], [`${P}/examples`, 'annotation-changed', false]] },
  // boolean schemas
  { name: 'an event schema becomes false', old: true, new: false, changes: [['', 'schema-false', true]] },
  { name: 'an event schema stops being false', old: false, new: { type: 'object' }, changes: [['', 'schema-loosened', false]] },
  { name: 'true becomes a constraining schema', old: true, new: { type: 'object' }, changes: [['/type', 'type-added', true]] },
];

describe('schema changes', () => {
  it.each(schemaScenarios)('$name', (scenario) => {
    const [before, after] = bundles({ click: scenario.old }, { click: scenario.new });
    // Every scenario's schemas are real, loadable schemas: the diff is never asked about what ingest would refuse.
    compileTrackingPlan(before, 'old');
    compileTrackingPlan(after, 'new');
    const expected = scenario.changes.map(([path, kind, breaking]) => ({ path: `/events/click${path}`, kind, breaking }));
    expect(summary(diffTrackingPlans(before, after))).toEqual(expected);
  });

  it('the CONTRACT example gains a plan value and a required prop', () => {
    const before = contractBundle() as TrackingPlanBundle;
    const after = structuredClone(before);
    const props = (after.events.signup as { properties: { props: { required: string[]; properties: Record<string, unknown> } } }).properties.props;
    props.properties.plan = { enum: ['free', 'pro', 'team'] };
    props.properties.seats = { type: 'integer', minimum: 1 };
    props.required.push('seats');
    after.version = '2.0.0';
    const changes = diffTrackingPlans(before, after);
    expect(changes).toEqual([
      { path: '/events/signup/properties/props/required', kind: 'required-added', breaking: true, message: 'property "seats" is now required' },
      { path: '/events/signup/properties/props/properties/plan/enum', kind: 'enum-values-added', breaking: false, message: 'allowed values added: "team"' },
      { path: '/events/signup/properties/props/properties/seats', kind: 'property-added', breaking: false, message: 'property "seats" declared; it was rejected as an additional property before' },
    ]);
  });

  it('says so when it cannot classify a change', () => {
    const [before, after] = bundles({ click: prop({ not: { const: '' } }) }, { click: prop({ not: { const: 'x' } }) });
    expect(diffTrackingPlans(before, after)[0]!.message).toBe('"not" changed: cannot tell whether every event accepted before is still accepted, so treated as breaking');
  });

  it('treats any change to a keyword it does not know as breaking (such bundles do not load, but the diff stays safe)', () => {
    const [before, after] = bundles({ click: obj({}, { 'x-owner': 'growth' }) }, { click: obj({}, { 'x-owner': 'product' }) });
    expect(summary(diffTrackingPlans(before, after))).toEqual([{ path: '/events/click/x-owner', kind: 'unclassified', breaking: true }]);
    const [unowned, owned] = bundles({ click: obj({}) }, { click: obj({}, { 'x-owner': 'growth' }) });
    expect(summary(diffTrackingPlans(unowned, owned))).toEqual([{ path: '/events/click/x-owner', kind: 'unclassified', breaking: true }]);
  });
});

describe('event changes', () => {
  const strict = obj({ props: { type: 'object' } }, { required: ['props'] });
  const wildcard = { type: 'object', additionalProperties: true, required: [] };

  it.each([
    { name: 'event removed', old: { click: strict }, new: {}, changes: [['/events/click', 'event-removed', true]] },
    { name: 'event added', old: {}, new: { click: strict }, changes: [['/events/click', 'event-added', false]] },
    { name: 'wildcard removed', old: { '*': wildcard }, new: {}, changes: [['/events/*', 'wildcard-removed', true]] },
    { name: 'wildcard added', old: {}, new: { '*': wildcard }, changes: [['/events/*', 'wildcard-added', false]] },
    {
      name: 'wildcard narrowed',
      old: { '*': wildcard },
      new: { '*': { ...wildcard, additionalProperties: false } },
      changes: [['/events/*/additionalProperties', 'additional-properties-forbidden', true]],
    },
    {
      name: 'event removed, now under a permissive wildcard: nothing accepted before is rejected',
      old: { click: strict, '*': wildcard },
      new: { '*': wildcard },
      changes: [
        ['/events/click', 'event-removed', false],
        ['/events/click/required', 'required-removed', false],
        ['/events/click/properties/props', 'property-removed', false],
      ],
    },
    {
      name: 'event added where the wildcard accepted it: its stricter rules are breaking',
      old: { '*': wildcard },
      new: { click: strict, '*': wildcard },
      changes: [
        ['/events/click', 'event-added', false],
        ['/events/click/required', 'required-added', true],
        ['/events/click/properties/props', 'property-added', true],
      ],
    },
  ] as { name: string; old: Record<string, Schema>; new: Record<string, Schema>; changes: [string, string, boolean][] }[])('$name', (scenario) => {
    const [before, after] = bundles(scenario.old, scenario.new);
    expect(summary(diffTrackingPlans(before, after))).toEqual(scenario.changes.map(([path, kind, breaking]) => ({ path, kind, breaking })));
  });

  it('a renamed plan and a new description are reported, not breaking', () => {
    const before: TrackingPlanBundle = { plan: 'shop', version: '1.0.0', events: {} };
    const after: TrackingPlanBundle = { plan: 'store', version: '1.0.1', description: 'The shop', events: {} };
    expect(summary(diffTrackingPlans(before, after))).toEqual([
      { path: '/plan', kind: 'plan-renamed', breaking: false },
      { path: '/description', kind: 'annotation-changed', breaking: false },
    ]);
  });
});

describe('the version bump', () => {
  const breakingEvents = [{ click: true }, {}] as const; // event removed
  const additiveEvents = [{}, { click: true }] as const; // event added
  const annotationEvents = [{ click: { description: 'a' } }, { click: { description: 'b' } }] as const;

  it.each([
    { name: 'breaking with a major bump', events: breakingEvents, from: '1.4.0', to: '2.0.0', version: undefined },
    { name: 'breaking with a minor bump', events: breakingEvents, from: '1.4.0', to: '1.5.0', version: true },
    { name: 'breaking with a patch bump', events: breakingEvents, from: '1.4.0', to: '1.4.1', version: true },
    { name: 'breaking without a bump', events: breakingEvents, from: '1.4.0', to: '1.4.0', version: true },
    { name: 'breaking in 0.x with a minor bump', events: breakingEvents, from: '0.3.0', to: '0.4.0', version: undefined },
    { name: 'breaking in 0.x with a patch bump', events: breakingEvents, from: '0.3.0', to: '0.3.1', version: true },
    { name: 'breaking between pre-releases of one version', events: breakingEvents, from: '2.0.0-rc.1', to: '2.0.0-rc.2', version: undefined },
    { name: 'a version that went backwards', events: additiveEvents, from: '1.4.0', to: '1.3.9', version: true },
    { name: 'additive with a minor bump', events: additiveEvents, from: '1.4.0', to: '1.5.0', version: undefined },
    { name: 'additive with a major bump', events: additiveEvents, from: '1.4.0', to: '2.0.0', version: undefined },
    { name: 'additive with a patch bump', events: additiveEvents, from: '1.4.0', to: '1.4.1', version: false },
    { name: 'additive without a bump', events: additiveEvents, from: '1.4.0', to: '1.4.0', version: false },
    { name: 'annotations with a patch bump', events: annotationEvents, from: '1.4.0', to: '1.4.1', version: undefined },
    { name: 'annotations without a bump', events: annotationEvents, from: '1.4.0', to: '1.4.0', version: false },
    { name: 'no change, no bump', events: [{ click: true }, { click: true }] as const, from: '1.4.0', to: '1.4.0', version: undefined },
  ])('$name', ({ events, from, to, version }) => {
    const changes = diffTrackingPlans({ plan: 'shop', version: from, events: { ...events[0] } }, { plan: 'shop', version: to, events: { ...events[1] } });
    const finding = changes.find((change) => change.kind === 'version');
    expect(finding?.breaking).toBe(version);
    if (finding) expect(finding.path).toBe('/version');
  });

  it('explains what bump was needed', () => {
    const changes = diffTrackingPlans({ plan: 'shop', version: '1.4.0', events: { click: true } }, { plan: 'shop', version: '1.5.0', events: {} });
    expect(changes.at(-1)).toEqual({ path: '/version', kind: 'version', breaking: true, message: 'breaking changes need a major version bump, but 1.4.0 → 1.5.0 is a minor bump' });
  });
});
