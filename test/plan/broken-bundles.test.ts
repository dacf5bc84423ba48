// A broken bundle never half-loads: loadTrackingPlan throws a PlanError naming the file and the bad pointer.
import { afterAll, describe, expect, it } from 'vitest';
import { loadTrackingPlan, PlanError } from '../../src/plan/tracking-plan.ts';
import { contractBundle, scratchDirectory } from './fixtures.ts';

const scratch = scratchDirectory('sightline-plan-broken-');
afterAll(() => scratch.remove());

/** The PlanError thrown by loading `content` from a file, or a test failure when it loads. */
function loadError(name: string, content: unknown): { file: string; error: PlanError } {
  const file = scratch.write(name, content);
  try {
    loadTrackingPlan(file);
  } catch (error) {
    expect(error).toBeInstanceOf(PlanError);
    expect(error).toBeInstanceOf(Error);
    return { file, error: error as PlanError };
  }
  throw new Error(`${name} loaded`);
}

/** The contract bundle with `schema` as the signup event. */
const withSignup = (schema: unknown) => ({ ...contractBundle(), events: { ...contractBundle().events, signup: schema } });

describe('file and JSON problems', () => {
  it('bad JSON names the file and where the parser stopped', () => {
    const { file, error } = loadError('bad.json', '{ "plan": "shop", "version": "1.0.0", events: {} }');
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(file)}: not valid JSON: .*position \\d+`));
    expect(error.problems).toEqual([]);
  });

  it('a missing file names the file', () => {
    const file = `${scratch.directory}/absent.json`;
    expect(() => loadTrackingPlan(file)).toThrow(new PlanError(`${file}: cannot read the file: ENOENT`));
  });
});

describe('structure problems', () => {
  it.each([
    { name: 'missing events', bundle: { plan: 'shop', version: '1.0.0' }, pointer: '/events', message: 'is required' },
    { name: 'events not an object', bundle: { plan: 'shop', version: '1.0.0', events: [] }, pointer: '/events', message: 'must be an object of event schemas' },
    { name: 'a bad event type key', bundle: { plan: 'shop', version: '1.0.0', events: { 'sign up': true } }, pointer: '/events/sign up', message: 'must be "*" or match ^[A-Za-z][A-Za-z0-9_.:-]{0,63}$' },
    { name: 'a key starting with a digit', bundle: { plan: 'shop', version: '1.0.0', events: { '1st': true } }, pointer: '/events/1st', message: 'must be "*" or match ^[A-Za-z][A-Za-z0-9_.:-]{0,63}$' },
    { name: 'a schema that is neither object nor boolean', bundle: { plan: 'shop', version: '1.0.0', events: { click: 'object' } }, pointer: '/events/click', message: 'must be a JSON Schema (an object or a boolean)' },
    { name: 'a version that is not semver', bundle: { plan: 'shop', version: '1.4', events: {} }, pointer: '/version', message: 'must be a semantic version such as 1.4.0' },
    { name: 'an empty plan name', bundle: { plan: '', version: '1.0.0', events: {} }, pointer: '/plan', message: 'must not be empty' },
    { name: 'an unknown top-level key', bundle: { plan: 'shop', version: '1.0.0', events: {}, defaults: {} }, pointer: '/defaults', message: 'unknown key (allowed: plan, version, description, events)' },
    { name: 'not an object at all', bundle: [1], pointer: '/', message: 'must be an object with plan, version and events' },
  ])('$name', ({ bundle, pointer, message }) => {
    const { file, error } = loadError('structure.json', bundle);
    expect(error.message).toBe(`${file}: ${pointer}: ${message}`);
  });

  it('lists every problem, and the message says how many more there are', () => {
    const { file, error } = loadError('many.json', { plan: 'shop', version: 'one', events: { 'a b': true, 'c d': true } });
    expect(error.message).toBe(`${file}: /version: must be a semantic version such as 1.4.0 (and 2 more)`);
    expect(error.problems.map((problem) => problem.path)).toEqual(['/version', '/events/a b', '/events/c d']);
  });
});

describe('schema problems (ajv 2020-12, strict mode)', () => {
  it.each([
    {
      name: 'an invalid keyword value (the meta-schema refuses it)',
      signup: { type: 'object', properties: { props: { type: 'object', properties: { plan: { type: 'strin' } } } } },
      pointer: '/events/signup/properties/props/properties/plan/type',
      message: 'must be equal to one of the allowed values',
    },
    { name: 'a negative minLength', signup: { type: 'string', minLength: -1 }, pointer: '/events/signup/minLength', message: 'must be >= 0' },
    {
      name: 'an unknown keyword (a typo)',
      signup: { type: 'object', properties: { props: { type: 'object', minProperites: 1 } } },
      pointer: '/events/signup/properties/props/minProperites',
      message: 'unknown keyword: "minProperites" (strict mode)',
    },
    {
      name: 'a type-specific keyword without its type',
      signup: { properties: { props: { type: 'object' } } },
      pointer: '/events/signup/properties',
      message: 'missing type "object" for keyword "properties" (strict mode)',
    },
    {
      name: 'a required property that additionalProperties: false forbids (a typo)',
      signup: { type: 'object', required: ['type', 'prosp'], additionalProperties: false, properties: { type: { type: 'string' }, props: { type: 'object' } } },
      pointer: '/events/signup/required/1',
      message: 'names a property that additionalProperties: false forbids, so no event can pass',
    },
    {
      name: 'an unknown format',
      signup: { type: 'object', properties: { props: { type: 'object', properties: { email: { type: 'string', format: 'e-mail' } } } } },
      pointer: '/events/signup/properties/props/properties/email/format',
      message: 'unknown format "e-mail"',
    },
    {
      name: 'a pattern that is not a regular expression',
      signup: { type: 'object', properties: { props: { type: 'object', properties: { sku: { type: 'string', pattern: '^SKU-(' } } } } },
      pointer: '/events/signup/properties/props/properties/sku/pattern',
      message: expect.stringMatching(/^Invalid regular expression: /),
    },
    {
      name: 'a $ref that resolves nowhere',
      signup: { type: 'object', properties: { props: { $ref: '#/$defs/props' } } },
      pointer: '/events/signup/properties/props/$ref',
      message: "can't resolve reference #/$defs/props from id #",
    },
    {
      name: 'another JSON Schema dialect',
      signup: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
      pointer: '/events/signup/$schema',
      message: 'no schema with key or ref "http://json-schema.org/draft-07/schema#"',
    },
  ])('$name', ({ signup, pointer, message }) => {
    const { file, error } = loadError('schema.json', withSignup(signup));
    expect(error.problems).toEqual([{ path: pointer, message }]);
    expect(error.message.startsWith(`${file}: ${pointer}: `)).toBe(true);
  });

  it('required may name properties declared elsewhere, as in anyOf and if/then', () => {
    const file = scratch.write('either.json', withSignup({
      type: 'object',
      properties: { email: { type: 'string' }, phone: { type: 'string' } },
      anyOf: [{ required: ['email'] }, { required: ['phone'] }],
      if: { required: ['phone'] },
      then: { required: ['email'] },
    }));
    const plan = loadTrackingPlan(file);
    expect(plan.validate({ type: 'signup', email: 'a@b.example' })).toEqual([]);
    expect(plan.validate({ type: 'signup', phone: '123' })).toEqual([
      { path: '/email', message: 'is required' },
      { path: '', message: 'must match "then" schema' },
    ]);
  });

  it('the wildcard is compiled and checked like any event', () => {
    const { file, error } = loadError('wildcard.json', { ...contractBundle(), events: { '*': { type: 'object', additionalProperties: 'yes' } } });
    expect(error.message).toBe(`${file}: /events/*/additionalProperties: must be object,boolean`);
  });

  it('problems in several events are all listed', () => {
    const { error } = loadError('several.json', { plan: 'shop', version: '1.0.0', events: { a: { type: 'strnig' }, b: { typo: 1 }, c: true } });
    expect(error.problems.map((problem) => problem.path)).toEqual(['/events/a/type', '/events/b/typo']);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
