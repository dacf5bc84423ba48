// The admin UI's answer types (web/admin/api-answers.d.ts) are the server's: the file equals what
// build/answer-types.mjs generates from the catalog the server publishes (GET /v1/schemas), so a route whose answer
// changes fails here until `node build/answer-types.mjs` is run (`npm run typecheck` then checks the UI against it).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTypesOf, answerTypesPath } from '../../build/answer-types.mjs';
import { startTestServer, type TestServer } from '../_setup.ts';

describe('the admin UI answer types', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('are generated from the catalog the server publishes (run node build/answer-types.mjs after a change)', async () => {
    const response = await fetch(`${server.url}/v1/schemas`);
    expect(response.status).toBe(200);
    const catalog = (await response.json()) as Record<string, unknown>;
    expect(readFileSync(answerTypesPath, 'utf8')).toBe(answerTypesOf(catalog));
  });
});

describe('answerTypesOf', () => {
  const typeOf = (schema: unknown) => answerTypesOf({ 'GET /v1/x': schema }).split('\n').slice(5, -2).join('\n');
  const cases: { name: string; schema: unknown; type: string }[] = [
    {
      name: 'an object with a required and an optional property',
      schema: { type: 'object', properties: { id: { type: 'string' }, note: { type: ['string', 'null'] } }, required: ['id'] },
      type: '  "GET /v1/x": {\n    id: string;\n    note?: string | null;\n  };',
    },
    { name: 'a map', schema: { type: 'object', additionalProperties: { type: 'integer' } }, type: '  "GET /v1/x": Record<string, number>;' },
    { name: 'an array of a union', schema: { type: 'array', items: { enum: ['a', 'b'] } }, type: '  "GET /v1/x": ("a" | "b")[];' },
    { name: 'alternatives and a constant', schema: { anyOf: [{ const: true }, { type: 'null' }] }, type: '  "GET /v1/x": true | null;' },
    { name: 'a bound or a pattern (they only narrow)', schema: { type: 'string', pattern: '^a', maxLength: 3 }, type: '  "GET /v1/x": string;' },
  ];
  it.each(cases)('types $name', ({ schema, type }) => {
    expect(typeOf(schema)).toBe(type);
  });

  it('refuses a keyword it does not know rather than guess a type', () => {
    expect(() => answerTypesOf({ 'GET /v1/x': { $ref: '#/$defs/thing' } })).toThrow('the keyword $ref is not supported');
    expect(() => answerTypesOf({ 'GET /v1/x': { type: 'object', properties: { a: { allOf: [] } } } })).toThrow('the keyword allOf');
  });
});
