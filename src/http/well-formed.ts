// Strings that are not well-formed Unicode (a lone surrogate, which a JSON escape such as "\ud800" can write) are
// refused: SQLite stores UTF-8, so a stored lone surrogate would no longer equal the string that was checked.
import type { ErrorDetail } from './errors.ts';

/**
 * A JSON escape of a surrogate (U+D800-U+DFFF). Text decoded from UTF-8 holds no lone surrogate, so only such an
 * escape can put one in a parsed value; a text without one needs no walk. `\\ud800` (an escaped backslash) matches
 * too, harmlessly: the walk then finds nothing.
 */
const surrogateEscape = /\\u[dD][89a-fA-F]/;

/**
 * Whether the JSON text may parse to a lone surrogate (a cheap scan, for the ingest hot path).
 * @example mayHoldLoneSurrogate('{"a":"\\ud800"}') → true; mayHoldLoneSurrogate('{"a":"é"}') → false
 */
export function mayHoldLoneSurrogate(jsonText: string): boolean {
  return surrogateEscape.test(jsonText);
}

const stringMessage = 'must be well-formed Unicode (no lone surrogate)';
const keyMessage = 'has a member name that is not well-formed Unicode (a lone surrogate)';

function toPointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * How deep the walk descends. Ingest refuses deeper values anyway (a field nests at most 64 levels) and admin
 * schemas never read that deep; the bound keeps a pointer, and so a refusal, short.
 */
const maxWalkDepth = 100;

/**
 * JSON Pointers (after `pointerPrefix`) to every string of a parsed JSON value that is not well-formed, and to every
 * object with such a member name, at most `limit` of them. Iterative, so no nesting can exhaust the stack.
 * @example findIllFormedStrings({ a: ['x', '\ud800'] }, '/3') → [{ path: '/3/a/1', message: … }]
 */
export function findIllFormedStrings(value: unknown, pointerPrefix: string, limit = 20): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const pending: { value: unknown; pointer: string; depth: number }[] = [{ value, pointer: pointerPrefix, depth: 0 }];
  while (pending.length > 0 && details.length < limit) {
    const { value: current, pointer, depth } = pending.pop()!;
    if (typeof current === 'string') {
      if (!current.isWellFormed()) details.push({ path: pointer, message: stringMessage });
    } else if (typeof current === 'object' && current !== null && depth < maxWalkDepth) {
      const entries = Object.entries(current);
      if (!Array.isArray(current) && entries.some(([key]) => !key.isWellFormed())) details.push({ path: pointer, message: keyMessage });
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        pending.push({ value: child, pointer: `${pointer}/${toPointerToken(key)}`, depth: depth + 1 });
      }
    }
  }
  return details;
}
