// Runs the `sightline` command tree (citty) with the checks citty leaves out: help and errors without colours when
// they would not show as colours (piped, NO_COLOR, TERM=dumb), a bare group (`sightline`, `sightline site`) printing
// its help, and every unknown flag or stray argument refused with its name before anything runs.
import { type ArgDef, type CommandDef, renderUsage, runCommand } from 'citty';
import { stripVTControlCharacters } from 'node:util';
import { colorsWanted, printError } from './terminal.ts';

type AnyCommand = CommandDef<any>;

async function resolve<T>(value: T | Promise<T> | (() => T) | (() => Promise<T>) | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? (value as () => T | Promise<T>)() : value;
}

/** The commands named on the command line, root first, and the tokens after the last name. */
interface Resolved {
  chain: { name: string; command: AnyCommand }[];
  /** Flags given before the last command name (they would be dropped: citty passes on only what follows a name). */
  misplacedFlags: string[];
  rest: string[];
  /** A word where a command name was expected. */
  unknownCommand?: string;
}

async function resolveCommands(root: AnyCommand, rootName: string, rawArgs: string[]): Promise<Resolved> {
  const chain = [{ name: rootName, command: root }];
  const misplacedFlags: string[] = [];
  let rest = rawArgs;
  for (;;) {
    const subCommands = await resolve(chain.at(-1)!.command.subCommands);
    if (!subCommands) return { chain, misplacedFlags, rest };
    const index = rest.findIndex((token) => token === '--' || !token.startsWith('-'));
    if (index === -1 || rest[index] === '--') return { chain, misplacedFlags, rest };
    const name = rest[index]!;
    misplacedFlags.push(...rest.slice(0, index));
    const command = await resolve(subCommands[name]);
    if (!command) return { chain, misplacedFlags, rest, unknownCommand: name };
    chain.push({ name, command });
    rest = rest.slice(index + 1);
  }
}

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The first token of `tokens` the command's arguments do not define, as the message that refuses it: an unknown flag
 * (`--no-X` only for a boolean X; `--help` and `-h` always), or a positional argument beyond those it takes.
 * @example findArgumentProblem({ port: { type: 'string' } }, ['--prot', '0']) // 'Unknown flag --prot'
 */
export function findArgumentProblem(args: Record<string, ArgDef>, tokens: string[]): string | undefined {
  const flags = new Map<string, ArgDef>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    for (const spelling of [name, camelCase(name), ...[('alias' in def ? def.alias : undefined) ?? []].flat()]) flags.set(spelling, def);
  }
  let positionals = Object.values(args).filter((def) => def.type === 'positional').length;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token === '--') break;
    if (!token.startsWith('-') || token === '-') {
      if (positionals === 0) return `Unexpected argument ${token}`;
      positionals -= 1;
      continue;
    }
    if (token === '--help' || token === '-h') continue;
    const name = token.replace(/^--?/, '').split('=')[0]!;
    const def = flags.get(name);
    if (!def) {
      const negated = name.startsWith('no-') ? flags.get(name.slice(3)) : undefined;
      if (negated?.type === 'boolean' && !token.includes('=')) continue;
      return `Unknown flag ${token.split('=')[0]}`;
    }
    if ((def.type === 'string' || def.type === 'enum') && token.endsWith('=')) return `Flag ${token.slice(0, -1)} needs a value`;
    if ((def.type === 'string' || def.type === 'enum') && !token.includes('=')) {
      // citty's parser would take the next token whatever it is: a missing value, or another flag, is refused instead.
      const value = tokens[index + 1];
      if (value === undefined || value.startsWith('--')) return `Flag ${token} needs a value`;
      index += 1;
    }
  }
  return undefined;
}

/** What a command line comes to, decided before anything runs (runCommandLine carries it out). */
export type CommandLineDecision =
  | { kind: 'refuse'; message: string }
  | { kind: 'usage'; exitCode: 0 | 1 }
  | { kind: 'run' };

/**
 * Decides what `rawArgs` come to without running anything: help (`--help`, `-h`, or a group named without its
 * subcommand, which exits 1 as git does), a refusal (an unknown command, flag or stray argument: the reason and which
 * --help to read), or running the command. citty's own refusals (a missing required flag) come later, from running.
 * @example await decideCommandLine(main, ['site', 'list', '--prot']) // { kind: 'refuse', message: 'Unknown flag --prot (sightline site list --help lists its flags)' }
 */
export async function decideCommandLine(root: AnyCommand, rawArgs: string[]): Promise<CommandLineDecision & { chain: Resolved['chain'] }> {
  const rootMeta = (await resolve(root.meta)) ?? {};
  const resolved = await resolveCommands(root, rootMeta.name ?? 'sightline', rawArgs);
  const { chain } = resolved;
  const leaf = chain.at(-1)!;
  const commandName = chain.map((entry) => entry.name).join(' ');
  const refuse = (message: string) => ({ kind: 'refuse' as const, message, chain });

  const beforeEnd = rawArgs.includes('--') ? rawArgs.slice(0, rawArgs.indexOf('--')) : rawArgs;
  const misplaced = resolved.misplacedFlags.find((flag) => flag !== '--help' && flag !== '-h');
  if (misplaced !== undefined && (resolved.unknownCommand !== undefined || !leaf.command.run)) {
    return refuse(`Unknown flag ${misplaced.split('=')[0]} (${commandName} --help lists its commands)`);
  }
  if (resolved.unknownCommand !== undefined) return refuse(`Unknown command ${resolved.unknownCommand} (${commandName} --help lists its commands)`);
  if (beforeEnd.includes('--help') || beforeEnd.includes('-h')) return { kind: 'usage', exitCode: 0, chain };
  if (misplaced !== undefined) return refuse(`Unknown flag ${misplaced.split('=')[0]} before the command's name: flags go after it (${commandName} ${misplaced})`);
  if (!leaf.command.run) {
    if (resolved.rest.length > 0) return refuse(`${findArgumentProblem({}, resolved.rest)!} (${commandName} --help lists its commands)`);
    return { kind: 'usage', exitCode: 1, chain };
  }
  const problem = findArgumentProblem(((await resolve(leaf.command.args)) ?? {}) as Record<string, ArgDef>, resolved.rest);
  if (problem !== undefined) return refuse(`${problem} (${commandName} --help lists its flags)`);
  return { kind: 'run', chain };
}

/**
 * Runs the command the arguments name, as decideCommandLine decides. Help goes to stdout; a refused command line
 * prints one line on stderr and exits 1 without running anything.
 */
export async function runCommandLine(root: AnyCommand, rawArgs: string[]): Promise<void> {
  const rootMeta = (await resolve(root.meta)) ?? {};
  const decision = await decideCommandLine(root, rawArgs);
  const { chain } = decision;
  const leaf = chain.at(-1)!;
  const commandName = chain.map((entry) => entry.name).join(' ');
  // One line: the reason and where the help is (the whole help would bury the reason).
  const refuse = (message: string) => {
    printError(message);
    process.exitCode = 1;
  };
  if (decision.kind === 'refuse') return refuse(decision.message);
  if (decision.kind === 'usage') {
    // renderUsage names a command by its parent's name and its own: the parent stands for the whole path here.
    const parent = chain.length > 1 ? { meta: { name: chain.slice(0, -1).map((entry) => entry.name).join(' ') } } : undefined;
    const usage = await renderUsage({ ...leaf.command, meta: { ...(await resolve(leaf.command.meta)), name: leaf.name, ...(parent ? {} : { version: rootMeta.version }) } }, parent);
    // citty pads every column, the last one too: no line ends in spaces here.
    const lines = (colorsWanted(process.stdout, process.env) ? usage : stripVTControlCharacters(usage)).split('\n').map((line) => line.trimEnd());
    process.stdout.write(`${lines.join('\n').trimEnd()}\n`);
    if (decision.exitCode === 1) process.exitCode = 1;
    return;
  }
  try {
    await runCommand(root, { rawArgs });
  } catch (error) {
    // citty's own refusals (a missing required flag or argument) carry its colours; everything else is a failure.
    if (error instanceof Error && error.name === 'CLIError') return refuse(`${stripVTControlCharacters(error.message)} (${commandName} --help lists its flags)`);
    printError(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
