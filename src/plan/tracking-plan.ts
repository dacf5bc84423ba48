// The tracking plan (CONTRACT section 3): a bundle of per-event JSON Schemas, compiled once, validating events.
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { ErrorDetail } from '../http/errors.ts';
import { checkBundleStructure, wildcardEventType, type TrackingPlanBundle } from './bundle.ts';
import { compileEventSchemas } from './compile-schemas.ts';
import { toPlanErrorDetails } from './validation-errors.ts';

export interface TrackingPlan {
  name: string; // bundle "plan"
  version: string; // bundle "version"
  /** [] when the event passes. Paths are JSON Pointers into the event as sent, each prefixed with pointerPrefix (e.g. "/3" for the 4th element of an array body). */
  validate(event: Record<string, unknown>, pointerPrefix?: string): ErrorDetail[];
}

/**
 * A bundle that cannot be used. The message names the file and the first bad JSON Pointer inside it
 * ("plan.json: /events/signup/type: must be equal to one of the allowed values"); `problems` lists them all.
 */
export class PlanError extends Error {
  constructor(
    message: string,
    /** Every problem found, as JSON Pointers into the bundle ([] when the file could not be read or parsed). */
    readonly problems: ErrorDetail[] = [],
    /** The file (or label) the problems are in. */
    readonly source?: string,
  ) {
    super(message);
    this.name = 'PlanError';
  }

  static fromProblems(source: string, problems: ErrorDetail[]): PlanError {
    const [first] = problems;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return new PlanError(`${source}: ${first!.path || '/'}: ${first!.message}${more}`, problems, source);
  }
}

/**
 * Reads a bundle file's JSON and checks its structure (not its schemas: see compileTrackingPlan).
 * @example const bundle = readTrackingPlanBundle('plans/shop.json');
 */
export function readTrackingPlanBundle(path: string): TrackingPlanBundle {
  return parseTrackingPlanBundle(readBundleJson(path), path);
}

/** Checks an already parsed bundle's structure; `source` names it in the error message. */
export function parseTrackingPlanBundle(value: unknown, source: string): TrackingPlanBundle {
  const structure = checkBundleStructure(value);
  if (!structure.ok) throw PlanError.fromProblems(source, structure.problems);
  return structure.bundle;
}

/**
 * Reads and compiles a bundle file; a broken bundle throws PlanError naming the file and the bad pointer.
 * @example const plan = loadTrackingPlan(config.schemaBundlePath);
 */
export function loadTrackingPlan(path: string): TrackingPlan {
  return compileTrackingPlan(readBundleJson(path), path);
}

/**
 * Checks a parsed bundle and compiles every schema once; `source` names the bundle in error messages.
 * @example compileTrackingPlan({ plan: 'shop', version: '1.0.0', events: { '*': true } }, 'inline').validate(event)
 */
export function compileTrackingPlan(bundle: unknown, source: string): TrackingPlan {
  const checked = parseTrackingPlanBundle(bundle, source);
  const compiled = compileEventSchemas(checked);
  if (!compiled.ok) throw PlanError.fromProblems(source, compiled.problems);
  const wildcard = compiled.validators.get(wildcardEventType);
  compiled.validators.delete(wildcardEventType);
  return createTrackingPlan(checked.plan, checked.version, compiled.validators, wildcard);
}

function createTrackingPlan(name: string, version: string, validators: Map<string, ValidateFunction>, wildcard: ValidateFunction | undefined): TrackingPlan {
  return {
    name,
    version,
    validate(event, pointerPrefix = '') {
      // A Map, not the bundle object: a type named "constructor" or "__proto__" must not reach Object.prototype.
      const validator = (typeof event.type === 'string' ? validators.get(event.type) : undefined) ?? wildcard;
      if (!validator) return [{ path: `${pointerPrefix}/type`, message: 'unknown event' }];
      if (validator(withoutEnvelope(event))) return [];
      return toPlanErrorDetails(validator.errors ?? [], pointerPrefix);
    },
  };
}

/** The envelope is checked at the wire boundary, never by the plan; every other field stays, unknown ones included. */
function withoutEnvelope(event: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, site_id: _siteId, anon_id: _anonId, ts: _ts, url: _url, ...planned } = event;
  return planned;
}

function readBundleJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PlanError(`${path}: cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // Invalid JSON has no pointer yet; the parser's message gives the position.
    throw new PlanError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
}
