// The exact text of each element of a JSON array body, so every event's raw column is what the client sent; and, in
// the same pass, how many object members each element writes, which repeated-members.ts compares with the parsed
// value to find a repeated member name without a second scan.

export interface JsonElement {
  /** The element's source text, without the whitespace around it. */
  text: string;
  /** How many object members the text writes, at any depth: its colons outside strings. */
  members: number;
}

/** The index of the quote that closes the string whose text starts at `from` (a quote after an odd run of backslashes is escaped). */
export function closingQuote(text: string, from: number): number {
  let at = text.indexOf('"', from);
  while (at >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

/**
 * How many object members a JSON text (already known to parse) writes: in JSON, a colon outside a string is always a
 * member's, and every member has one.
 * @example countWrittenMembers('{"a":{"b":"c:d"},"a":1}') → 3
 */
export function countWrittenMembers(text: string): number {
  let members = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    // Strings are skipped whole (indexOf runs natively): most of an event's text is in them.
    if (char === 0x22 /* " */) index = closingQuote(text, index + 1);
    else if (char === 0x3a /* : */) members++;
  }
  return members;
}

/**
 * Splits the text of a JSON array (already known to parse) into the source text of each element, with its count of
 * members.
 * @example splitJsonArray('[{"a":1}, {"b":"]"}]') → [{ text: '{"a":1}', members: 1 }, { text: '{"b":"]"}', members: 1 }]
 */
export function splitJsonArray(text: string): JsonElement[] {
  const elements: JsonElement[] = [];
  let depth = 0;
  let start = -1;
  let members = 0;
  const end = (at: number) => {
    elements.push({ text: text.slice(start, at).trim(), members });
    start = -1;
    members = 0;
  };
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 0x22 /* " */) {
      if (depth === 1 && start < 0) start = index;
      index = closingQuote(text, index + 1);
    } else if (char === 0x3a /* : */) {
      members++;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      if (depth === 1 && start < 0) start = index;
      depth++;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      depth--;
      if (depth === 0 && start >= 0) end(index);
    } else if (char === 0x2c /* , */ && depth === 1) {
      end(index);
    } else if (depth === 1 && start < 0 && char > 0x20) {
      start = index;
    }
  }
  return elements;
}
