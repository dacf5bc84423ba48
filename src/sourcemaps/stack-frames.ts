// The frames of a JavaScript stack trace as browsers write them: V8 (`    at fn (https://x/app.js:1:234)`, or
// without the function) and Firefox/Safari (`fn@https://x/app.js:1:234`). Lines that are no frame (the message) are
// left out. Line and column are 1-based in both.

export interface StackFrame {
  /** The line as written, trimmed. */
  frame: string;
  /** The base name of the script (URL path's last segment, without query or fragment). */
  file: string;
  line: number;
  column: number;
}

/** How much of a stack is read, and how many frames at most: a stack is a client's text, of any size. */
export const maxStackCharacters = 16 * 1024;
export const maxFrames = 50;
const maxFrameCharacters = 1024;

/** `:line:column` at the end (and V8's closing parenthesis): anchored, no backtracking over the line. */
const position = /:(\d{1,9}):(\d{1,9})\)?$/;

/** The base name of a script location: `https://x/a/app.js?v=2#x` → `app.js`. */
function baseNameOf(location: string): string {
  const path = location.replace(/[?#].*$/, '');
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Where a frame's location starts in the text before `:line:column`, or undefined when the line is no frame. V8:
 * after the last "(" or space (`at fn (url`, `at url`). Firefox and Safari: after the last "@" (`fn@url`,
 * `@debugger eval code`); a location alone has no space (so a message's text is not taken for a frame).
 */
function locationStartOf(line: string, before: string): number | undefined {
  if (line.startsWith('at ')) return Math.max(before.lastIndexOf('('), before.lastIndexOf(' ')) + 1;
  const at = before.lastIndexOf('@');
  if (at >= 0) return at + 1;
  return before.includes(' ') ? undefined : 0;
}

/**
 * @example parseStackFrames('TypeError: x\n    at f (https://a.example/app.js:1:42)') // → [{ frame: 'at f (https://a.example/app.js:1:42)', file: 'app.js', line: 1, column: 42 }]
 */
export function parseStackFrames(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const rawLine of stack.slice(0, maxStackCharacters).split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.length > maxFrameCharacters) continue;
    const match = position.exec(line);
    if (!match) continue;
    const before = line.slice(0, match.index);
    const start = locationStartOf(line, before);
    if (start === undefined) continue;
    const lineNumber = Number(match[1]);
    const column = Number(match[2]);
    if (start === before.length || lineNumber < 1) continue;
    frames.push({ frame: line, file: baseNameOf(before.slice(start)), line: lineNumber, column });
    if (frames.length === maxFrames) break;
  }
  return frames;
}
