// Valibot schemas as JSON Schema draft 2020-12 (@valibot/to-json-schema): answers exactly, request bodies as far as
// JSON Schema can say (checks written in code, such as "at most 128 code points after trimming", are left out).
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';

export type { JsonSchema };

/** The draft every published schema follows. */
export const jsonSchemaDialect = 'https://json-schema.org/draft/2020-12/schema';

/**
 * `v.custom` has no JSON Schema form: it converts to {} (anything), and a `v.metadata({ type: … })` later in the same
 * pipe may say more. Every other unconvertible schema or action throws, so a published schema never claims less than
 * the code checks without someone deciding it.
 */
const overrideSchema: ConversionConfig['overrideSchema'] = ({ valibotSchema }) => (valibotSchema.type === 'custom' ? {} : undefined);

/** `v.ip` accepts either family; JSON Schema names each format separately. */
const overrideAction: ConversionConfig['overrideAction'] = ({ valibotAction, jsonSchema }) =>
  valibotAction.type === 'ip' ? { ...jsonSchema, anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] } : undefined;

const answerConfig: ConversionConfig = { target: 'draft-2020-12', typeMode: 'output', errorMode: 'throw', overrideSchema, overrideAction };

/**
 * Request bodies are described as the client sends them (typeMode input: before the first transformation). Actions
 * that only run code (check, raw_check, trim) have no JSON Schema form; the server's refusal details say more.
 */
const bodyConfig: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'throw',
  overrideSchema,
  overrideAction,
  ignoreActions: ['check', 'raw_check', 'trim', 'transform'],
};

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  // Definitions would resolve against the OpenAPI document's root once embedded: refuse them rather than publish
  // dangling references (only v.lazy and `definitions` produce them; no answer uses either).
  if (rest.$defs) throw new Error('answer and body schemas must not use v.lazy or definitions');
  return rest;
}

/**
 * The JSON Schema of an answer (what the handler returns), without `$schema`, for embedding.
 * @example toAnswerJsonSchema(v.strictObject({ status: v.literal('ok') })) // { type: 'object', properties: …, additionalProperties: false }
 */
export function toAnswerJsonSchema(schema: v.GenericSchema): JsonSchema {
  return withoutDialect(toJsonSchema(schema, answerConfig));
}

/**
 * The JSON Schema of a request body (what the client sends), without `$schema`, for embedding.
 * @example toBodyJsonSchema(CreateSiteBody) // { type: 'object', properties: { id: …, name: { type: 'string', minLength: 1 } }, … }
 */
export function toBodyJsonSchema(schema: v.GenericSchema): JsonSchema {
  return withoutDialect(toJsonSchema(schema, bodyConfig));
}
