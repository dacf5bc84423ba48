// What the CLI writes to a terminal: colours only where they show as colours, and refusals as plain lines on stderr.

/**
 * Whether escape codes would show as colours on `stream`: NO_COLOR (any value, no-color.org) and TERM=dumb turn them
 * off, FORCE_COLOR on, and otherwise only a TTY gets them (never a pipe or a file).
 * @example colorsWanted(process.stdout, process.env)
 */
export function colorsWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR || env.TERM === 'dumb') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true;
}

/**
 * A refusal on stderr: `Error: message`, then each detail indented on a line of its own. Not consola: its reporter
 * wraps each line in blank lines and drops nothing here, but a refusal is read by people and by scripts alike.
 * @example printError('Invalid arguments (invalid_payload)', ['--slug: must match ^[a-z][a-z0-9-]{0,63}$'])
 */
export function printError(message: string, details: string[] = []): void {
  const label = colorsWanted(process.stderr, process.env) ? '\u001B[31mError:\u001B[39m' : 'Error:';
  process.stderr.write(`${[`${label} ${message}`, ...details.map((detail) => `  ${detail}`)].join('\n')}\n`);
}
