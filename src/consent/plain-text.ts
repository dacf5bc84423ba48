// What a banner's text may hold: plain text only. Markup, CSS, scripts and invisible characters are refused, so no
// renderer of the banner (the admin UI, a site's own script) can be made to run or style anything with it.
import * as v from 'valibot';

/** Controls (but the newlines a multi-line text may hold), line/paragraph separators and the bidi overrides. */
const controlCharacter = /[\p{Cc}\p{Zl}\p{Zp}\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;
const controlCharacterButNewline = /(?!\n)[\p{Cc}\p{Zl}\p{Zp}\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;

/** Each refusal with what it says; the first that matches is reported. */
const refusedPatterns: readonly { pattern: RegExp; message: string }[] = [
  // A tag, a closing tag, a comment, a doctype or CDATA: `<` then a letter, `/`, `!` or `?` (a lone `a < b` passes).
  { pattern: /<\s*[A-Za-z/!?]/, message: 'must be plain text: markup (an HTML tag or comment) is not allowed' },
  { pattern: /&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i, message: 'must be plain text: HTML character references are not allowed' },
  // A scheme is followed by no space: "needs JavaScript: please enable it" stays a sentence.
  { pattern: /\b(?:javascript|vbscript|livescript):(?!\s)/i, message: 'must not contain a script URL' },
  { pattern: /\bdata:[a-z]+\/[a-z0-9.+-]+[;,]/i, message: 'must not contain a data: URL' },
  { pattern: /\bon[a-z]{3,}\s*=/i, message: 'must not contain an event handler attribute' },
  { pattern: /\bstyle\s*=|@import\b|\bexpression\(|\burl\(|\{[^{}]*:[^{}]*\}/i, message: 'must be plain text: CSS is not allowed' },
];

/** The first thing wrong with a text of the banner, or undefined. */
export function plainTextProblem(text: string, multiline: boolean): string | undefined {
  if (!text.isWellFormed()) return 'must be well-formed Unicode (no lone surrogate)';
  if ((multiline ? controlCharacterButNewline : controlCharacter).test(text)) {
    return multiline ? 'must not contain control characters (newlines are allowed)' : 'must not contain control characters';
  }
  return refusedPatterns.find(({ pattern }) => pattern.test(text))?.message;
}

/** Length in characters (code points), so a text in an astral script is not held to half the limit. */
const characterCount = (text: string) => [...text].length;

/**
 * A plain-text string of 1 to `max` characters with something besides spaces.
 * @example PlainText(120) // the banner title
 */
export function PlainText(max: number, options: { multiline?: boolean } = {}) {
  return v.pipe(
    v.string('must be a string'),
    v.check((text) => text.trim() !== '', 'must not be empty'),
    v.check((text) => characterCount(text) <= max, `must be at most ${max} characters`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = plainTextProblem(dataset.value, options.multiline ?? false);
      if (problem) addIssue({ message: problem });
    }),
  );
}

/** An https URL of at most 2048 characters, without credentials or characters that need escaping in markup. */
export const HttpsUrl = v.pipe(
  v.string('must be a string'),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.regex(/^https:\/\/[^\s<>"'`\\]+$/, 'must be an https:// URL without spaces, quotes or angle brackets'),
  v.check((text) => {
    if (!URL.canParse(text)) return false;
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  }, 'must be a valid https URL without credentials'),
);
