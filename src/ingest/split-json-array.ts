// The exact text of each element of a JSON array body, so every event's raw column is what the client sent.

/**
 * Splits the text of a JSON array (already known to parse) into the source text of each element.
 * @example splitJsonArray('[{"a":1}, {"b":"]"}]') → ['{"a":1}', '{"b":"]"}']
 */
export function splitJsonArray(text: string): string[] {
  const elements: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (escaped) escaped = false;
      else if (char === 0x5c /* \ */) escaped = true;
      else if (char === 0x22 /* " */) inString = false;
      continue;
    }
    if (char === 0x22) {
      inString = true;
      if (depth === 1 && start < 0) start = index;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      if (depth === 1 && start < 0) start = index;
      depth++;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      depth--;
      if (depth === 0 && start >= 0) elements.push(text.slice(start, index).trim());
    } else if (char === 0x2c /* , */ && depth === 1) {
      elements.push(text.slice(start, index).trim());
      start = -1;
    } else if (depth === 1 && start < 0 && char > 0x20) {
      start = index;
    }
  }
  return elements;
}
