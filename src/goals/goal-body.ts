// What a goal may say (CONTRACT section 10), checked at the edge: a name, a kind, a path pattern (exact, or ending
// in * for a folder and below), an event type, and props that must all match exactly.
import * as v from 'valibot';
import { ApiError } from '../http/errors.ts';
import { TrimmedName } from '../http/validate.ts';
import type { GoalRule } from '../vocabulary/goal-rule.ts';

export const maxGoalPathLength = 512;
export const maxGoalProps = 10;
export const maxGoalPropKeyLength = 64;
export const maxGoalPropValueLength = 256;
/** Goals one site keeps at most: goals-v2 counts each of them. */
export const maxGoalsPerSite = 50;

const eventTypePattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/** A path as the tracker records it: from "/", no spaces or controls; one "*" at most, as the last character. */
export const GoalPath = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(maxGoalPathLength, `must be at most ${maxGoalPathLength} characters`),
  v.startsWith('/', 'must start with /'),
  v.check((path) => !/[\s\p{Cc}]/u.test(path), 'must not contain spaces or control characters'),
  v.check((path) => !path.slice(0, -1).includes('*'), 'may hold * only as its last character (a prefix)'),
);

const GoalProps = v.pipe(
  v.record(
    v.pipe(v.string(), v.minLength(1, 'a key must not be empty'), v.maxLength(maxGoalPropKeyLength, `a key must be at most ${maxGoalPropKeyLength} characters`)),
    v.pipe(v.string('must be a string (numbers are compared as their text, e.g. "3")'), v.maxLength(maxGoalPropValueLength, `must be at most ${maxGoalPropValueLength} characters`)),
  ),
  v.check((props) => Object.keys(props).length <= maxGoalProps, `must have at most ${maxGoalProps} keys`),
);

const fields = {
  name: TrimmedName,
  kind: v.picklist(['pageview', 'event'], 'must be pageview or event'),
  path: v.optional(v.nullable(GoalPath)),
  event_type: v.optional(v.nullable(v.pipe(v.string('must be a string'), v.regex(eventTypePattern, 'must match ^[A-Za-z][A-Za-z0-9_.:-]{0,63}$')))),
  props: v.optional(v.nullable(GoalProps)),
};

export const CreateGoalBody = v.strictObject(fields);
export const UpdateGoalBody = v.strictObject({
  name: v.optional(fields.name),
  kind: v.optional(fields.kind),
  path: fields.path,
  event_type: fields.event_type,
  props: fields.props,
});

export type CreateGoalInput = v.InferOutput<typeof CreateGoalBody>;
export type UpdateGoalInput = v.InferOutput<typeof UpdateGoalBody>;

/** A goal's definition once its fields are merged: what the kind needs, checked together. */
export interface GoalDefinition {
  name: string;
  kind: 'pageview' | 'event';
  path: string | null;
  event_type: string | null;
  props: Record<string, string> | null;
}

/** A pageview goal needs a path and takes no event type; an event goal needs its type. Empty props mean none. */
export function checkGoalDefinition(definition: GoalDefinition): GoalDefinition {
  if (definition.kind === 'pageview' && definition.path === null) throw ApiError.invalidPayload([{ path: '/path', message: 'a pageview goal needs a path' }]);
  if (definition.kind === 'pageview' && definition.event_type !== null) {
    throw ApiError.invalidPayload([{ path: '/event_type', message: 'a pageview goal takes no event_type' }]);
  }
  if (definition.kind === 'event' && definition.event_type === null) throw ApiError.invalidPayload([{ path: '/event_type', message: 'an event goal needs an event_type' }]);
  const props = definition.props && Object.keys(definition.props).length > 0 ? definition.props : null;
  return { ...definition, props };
}

/** The rule the read model matches. */
export function toGoalRule(definition: Pick<GoalDefinition, 'kind' | 'path' | 'event_type' | 'props'>): GoalRule {
  return {
    kind: definition.kind,
    ...(definition.path !== null ? { path: definition.path } : {}),
    ...(definition.event_type !== null ? { eventType: definition.event_type } : {}),
    ...(definition.props !== null ? { props: definition.props } : {}),
  };
}
