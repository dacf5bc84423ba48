// Repeated member names. RFC 8259 §4 leaves an object whose names repeat open to any reading: JSON.parse keeps the
// last value, SQLite's json functions over the raw column the first. So one event could pass the tracking plan with
// one value and be stored, reported and exported with the other (issue 24). The collector refuses such a payload at
// any depth, pointing at each repeated member. Cheaply: the text's member count (taken while the body is split)
// against the parsed value's; only when they differ is the text scanned for where.
import type { ErrorDetail } from '../http/errors.ts';
import { closingQuote, countWrittenMembers } from './split-json-array.ts';

export const repeatedMemberMessage = 'repeats a member name of its object (names must be unique, RFC 8259 §4)';
/** A pointer goes this deep at most (an event nests at most 64 levels anyway); deeper, it names the ancestor. */
const maxPointerDepth = 100;

/** How many members the objects of a parsed JSON value hold, at any depth. Iterative: values nest 60,000 levels. */
export function countParsedMembers(value: unknown): number {
  let members = 0;
  const pending: object[] = typeof value === 'object' && value !== null ? [value] : [];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (Array.isArray(current)) {
      for (const child of current) if (typeof child === 'object' && child !== null) pending.push(child);
      continue;
    }
    // Own names only (never for-in: an enumerable name on a prototype would inflate the count and hide a repeat).
    const names = Object.keys(current);
    members += names.length;
    for (const name of names) {
      const child = (current as Record<string, unknown>)[name];
      if (typeof child === 'object' && child !== null) pending.push(child);
    }
  }
  return members;
}

type Frame = { kind: 'array'; index: number } | { kind: 'object'; names: Set<string>; name: string; expectingName: boolean; reported?: Set<string> };

function toPointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The pointer of the member or element each frame is at; spelled out only for a finding. */
function pointerOf(prefix: string, frames: Frame[]): string {
  let pointer = prefix;
  for (const frame of frames.slice(0, maxPointerDepth)) pointer += `/${frame.kind === 'array' ? frame.index : toPointerToken(frame.name)}`;
  return pointer;
}

/**
 * Pointers to the repeated members of a JSON text that is known to parse (each repeated name once per object), at
 * most `limit` of them.
 * @example scanRepeatedMembers('{"props":{"a":1,"\\u0061":2}}', '/3') → [{ path: '/3/props/a', message: … }]
 */
export function scanRepeatedMembers(text: string, pointerPrefix: string, limit = 20): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const frames: Frame[] = [];
  for (let index = 0; index < text.length && details.length < limit; index++) {
    const char = text.charCodeAt(index);
    if (char === 0x22 /* " */) {
      const end = closingQuote(text, index + 1);
      const top = frames.at(-1);
      if (top?.kind === 'object' && top.expectingName) {
        // "pro\u0070s" and "props" are one name: escapes are decoded as JSON.parse decodes them.
        const written = text.slice(index + 1, end);
        const name = written.includes('\\') ? (JSON.parse(text.slice(index, end + 1)) as string) : written;
        top.name = name;
        top.expectingName = false;
        if (!top.names.has(name)) top.names.add(name);
        else if (!top.reported?.has(name)) {
          (top.reported ??= new Set()).add(name);
          const deeper = frames.length > maxPointerDepth ? ` (deeper than ${maxPointerDepth} levels)` : '';
          details.push({ path: pointerOf(pointerPrefix, frames), message: repeatedMemberMessage + deeper });
        }
      }
      index = end;
    } else if (char === 0x7b /* { */) {
      frames.push({ kind: 'object', names: new Set(), name: '', expectingName: true });
    } else if (char === 0x5b /* [ */) {
      frames.push({ kind: 'array', index: 0 });
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      frames.pop();
    } else if (char === 0x2c /* , */) {
      const top = frames.at(-1);
      if (top?.kind === 'array') top.index++;
      else if (top) top.expectingName = true;
    }
  }
  return details;
}

/**
 * The repeated members of one payload: none when its text writes as many members as its parsed value holds (the
 * hot path: two counts), else where they are.
 * @example findRepeatedMembers(raw, JSON.parse(raw), '/3') → [] or [{ path: '/3/props/plan', message: … }]
 * @param writtenMembers the text's count when the caller has it already (splitJsonArray gives it)
 */
export function findRepeatedMembers(text: string, value: unknown, pointerPrefix: string, writtenMembers = countWrittenMembers(text), limit = 20): ErrorDetail[] {
  if (writtenMembers === countParsedMembers(value)) return [];
  return scanRepeatedMembers(text, pointerPrefix, limit);
}
