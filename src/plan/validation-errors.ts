// Turns ajv's validation errors into { path, message } details that point into the event as sent.
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { ErrorDetail } from '../http/errors.ts';
import { escapePointerToken } from './bundle.ts';

const maxListedValues = 10;

/**
 * A missing property is reported at its own pointer (/props/plan "is required"), an extra one at its pointer too;
 * everything else at ajv's instancePath. Identical details are reported once.
 * @example toPlanErrorDetails(validate.errors ?? [], '/3')
 */
export function toPlanErrorDetails(errors: readonly ErrorObject[], pointerPrefix: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const detail = toDetail(error, pointerPrefix);
    const key = `${detail.path}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
  }
  return details;
}

function toDetail(error: ErrorObject, pointerPrefix: string): ErrorDetail {
  const path = pointerPrefix + error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
      return { path: `${path}/${escapePointerToken(String(params.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${path}/${escapePointerToken(String(params.additionalProperty))}`, message: 'is not an allowed property' };
    case 'unevaluatedProperties':
      return { path: `${path}/${escapePointerToken(String(params.unevaluatedProperty))}`, message: 'is not an allowed property' };
    case 'enum':
      return { path, message: `must be one of ${listValues(params.allowedValues as unknown[])}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    default: {
      // Errors about a property name (propertyNames) carry the name: point at it.
      const name = (error as ErrorObject & { propertyName?: string }).propertyName;
      return { path: name === undefined ? path : `${path}/${escapePointerToken(name)}`, message: error.message ?? 'is invalid' };
    }
  }
}

function listValues(values: unknown[]): string {
  const shown = values.slice(0, maxListedValues).map((value) => JSON.stringify(value)).join(', ');
  return values.length > maxListedValues ? `${shown}, … (${values.length} values)` : shown;
}
