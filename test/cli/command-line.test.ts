// The command line itself, on the real bundled CLI: help (bare `sightline` prints it and exits 1, as git does;
// --help exits 0), every command refusing an unknown flag or a stray argument before it runs, and colours only on a
// terminal that shows them (never piped, never with NO_COLOR). The rules are also checked as tables against the
// functions that decide them.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommandDef } from 'citty';
import { sightlineCommand } from '../../src/cli/commands.ts';
import { decideCommandLine, findArgumentProblem } from '../../src/cli/command-line.ts';
import { colorsWanted } from '../../src/cli/terminal.ts';
import { childEnvironment, ensureBuilt, repositoryRoot, runCli } from './cli-helpers.ts';

const execFileAsync = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-line-'));
/** A data directory no test creates: a refused command line must not create it either. */
const untouched = join(scratch, 'untouched');
const escape = '\u001B[';

vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The names in the COMMANDS section of a help text. */
function commandsIn(help: string): string[] {
  const section = help.split('\nCOMMANDS\n\n')[1]?.split('\n\n')[0];
  return section ? section.split('\n').map((line) => line.trim().split(/\s{2,}/)[0]!) : [];
}

/** Every runnable command and every group, found by walking the tree the executable runs (src/cli/commands.ts). */
async function walkCommands(): Promise<{ leaves: string[][]; groups: string[][] }> {
  const leaves: string[][] = [];
  const groups: string[][] = [];
  const visit = async (path: string[], command: CommandDef<any>) => {
    const subCommands = typeof command.subCommands === 'function' ? await command.subCommands() : await command.subCommands;
    if (!subCommands) return void leaves.push(path);
    groups.push(path);
    for (const [name, sub] of Object.entries(subCommands)) await visit([...path, name], typeof sub === 'function' ? await sub() : await sub);
  };
  await visit([], sightlineCommand);
  return { leaves, groups };
}

/** Runs `work` over `items`, `width` at a time (each item runs node processes). */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width) results.push(...(await Promise.all(items.slice(start, start + width).map(work))));
  return results;
}

describe('help', () => {
  it('bare sightline prints the help on stdout with its newlines and exits 1, as git does; --help prints the same and exits 0', async () => {
    const bare = await runCli([], { DATA_DIR: untouched });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe('');
    expect(bare.stdout).toMatch(/^Self-hosted, privacy-first web analytics \(sightline v\d+\.\d+\.\d+\)\n\nUSAGE sightline serve\|workspace\|site\|share-link\|/);
    expect(bare.stdout).toMatch(/\n\nUse sightline <command> --help for more information about a command\.\n$/);
    expect(bare.stdout).not.toContain('No command specified');
    expect(bare.stdout.split('\n').filter((line) => line !== line.trimEnd())).toEqual([]);

    const help = await runCli(['--help'], { DATA_DIR: untouched });
    expect(help).toEqual({ code: 0, stdout: bare.stdout, stderr: '' });
    expect((await runCli(['-h'], { DATA_DIR: untouched })).stdout).toBe(bare.stdout);
    expect(existsSync(untouched)).toBe(false);
  });

  it('a group without its subcommand prints its help and exits 1; a command\'s --help names the whole command', async () => {
    const site = await runCli(['site'], { DATA_DIR: untouched });
    expect(site.code).toBe(1);
    expect(site.stdout).toMatch(/^Manage sites \(sightline site\)\n\nUSAGE sightline site create\|list\|update\|retention\|delete\n/);
    const update = await runCli(['site', 'update', '--help'], { DATA_DIR: untouched });
    expect(update.code).toBe(0);
    expect(update.stdout).toContain('USAGE sightline site update [OPTIONS] --workspace=<workspace> --id=<id>');
    expect(update.stdout).toMatch(/--retention-days=<retention_days>\s+1-3650 whole UTC days of events kept, or "forever"/);
  });
});

describe('unknown flags and stray arguments', () => {
  it('every command refuses an unknown flag, naming it, before it runs; the executable prints that line and exits 1', async () => {
    const { leaves, groups } = await walkCommands();
    // All of them, the new ones included.
    expect(leaves.map((path) => path.join(' '))).toEqual(
      expect.arrayContaining(['serve', 'workspace rename', 'site delete', 'site retention', 'share-link create', 'share-link revoke', 'plan diff', 'version', 'doctor']),
    );
    // Decided in this process for every command (the decision runCommandLine carries out)...
    for (const path of leaves) {
      const decision = await decideCommandLine(sightlineCommand, [...path, '--no-such-flag', 'x']);
      expect({ path, kind: decision.kind, message: decision.kind === 'refuse' ? decision.message : undefined }).toEqual({
        path,
        kind: 'refuse',
        message: `Unknown flag --no-such-flag (sightline ${path.join(' ')} --help lists its flags)`,
      });
    }
    // ...and every group's help lists exactly its commands.
    for (const path of groups) expect((await decideCommandLine(sightlineCommand, [...path, '--help'])).kind).toBe('usage');
    // The executable carries the decision out: one line on stderr, exit 1, nothing created. A process per command
    // cost a minute of CPU (0.4 s each), so one command of each group runs here.
    const sample = groups.map((group) => leaves.find((path) => path.length === group.length + 1 && group.every((name, index) => path[index] === name))!).filter(Boolean);
    expect(sample.length).toBeGreaterThan(10);
    const runs = [...new Set([...sample, ['serve'], ['doctor']].map((path) => path.join(' ')))].map((name) => name.split(' '));
    const results = await inBatches(runs, 4, async (path) => ({ path, result: await runCli([...path, '--no-such-flag', 'x'], { DATA_DIR: untouched }) }));
    for (const { path, result } of results) {
      expect({ path, ...result }).toEqual({ path, code: 1, stdout: '', stderr: `Error: Unknown flag --no-such-flag (sightline ${path.join(' ')} --help lists its flags)\n` });
    }
    expect(existsSync(untouched)).toBe(false);
  });

  it('the help of each group the executable prints names the commands the tree holds', async () => {
    const { leaves, groups } = await walkCommands();
    const named = [...leaves, ...groups];
    const helps = await inBatches(groups.filter((path) => path.length <= 1), 4, async (path) => ({ path, help: await runCli([...path, '--help'], { DATA_DIR: untouched }) }));
    for (const { path, help } of helps) {
      expect(help.code, help.stderr).toBe(0);
      const children = named.filter((other) => other.length === path.length + 1 && path.every((name, index) => other[index] === name)).map((other) => other.at(-1));
      expect({ path, commands: commandsIn(help.stdout).sort() }).toEqual({ path, commands: children.sort() });
    }
  });

  const refusals: { name: string; args: string[]; stderr: string }[] = [
    { name: 'serve with a misspelt flag', args: ['serve', '--prot', '0'], stderr: 'Error: Unknown flag --prot (sightline serve --help lists its flags)\n' },
    { name: 'a flag with an inline value', args: ['serve', '--prot=0'], stderr: 'Error: Unknown flag --prot (sightline serve --help lists its flags)\n' },
    { name: 'a value flag without its value', args: ['workspace', 'list', '--data-dir'], stderr: 'Error: Flag --data-dir needs a value (sightline workspace list --help lists its flags)\n' },
    { name: 'a value flag followed by another flag', args: ['workspace', 'list', '--data-dir', '--json'], stderr: 'Error: Flag --data-dir needs a value (sightline workspace list --help lists its flags)\n' },
    { name: 'an empty inline value', args: ['workspace', 'list', '--data-dir='], stderr: 'Error: Flag --data-dir needs a value (sightline workspace list --help lists its flags)\n' },
    { name: 'a positional argument a command does not take', args: ['site', 'delete', 'my-site'], stderr: 'Error: Unexpected argument my-site (sightline site delete --help lists its flags)\n' },
    { name: 'a flag before the command name', args: ['--json', 'workspace', 'list'], stderr: "Error: Unknown flag --json before the command's name: flags go after it (sightline workspace list --json)\n" },
    { name: 'an unknown command', args: ['workspaces', 'list'], stderr: 'Error: Unknown command workspaces (sightline --help lists its commands)\n' },
    { name: 'an unknown subcommand', args: ['site', 'remove'], stderr: 'Error: Unknown command remove (sightline site --help lists its commands)\n' },
    { name: 'a flag on a group', args: ['site', '--workspace', 'x'], stderr: 'Error: Unknown flag --workspace (sightline site --help lists its commands)\n' },
    { name: 'a missing required flag', args: ['key', 'list'], stderr: 'Error: Missing required argument: --workspace (sightline key list --help lists its flags)\n' },
  ];
  it.each(refusals)('$name: exit 1 and one line', async ({ args, stderr }) => {
    expect(await runCli(args, { DATA_DIR: untouched })).toEqual({ code: 1, stdout: '', stderr });
    expect(existsSync(untouched)).toBe(false);
  });

  it('still takes what citty takes: --no-json, --json=false, a negative number as a value, and anything after --', async () => {
    const directory = join(scratch, 'accepted');
    expect((await runCli(['workspace', 'create', '--name', '-5', '--slug', 'minus', '--no-json'], { DATA_DIR: directory })).code).toBe(0);
    const listed = await runCli(['workspace', 'list', '--json=false', '--', '--ignored'], { DATA_DIR: directory });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^minus\s+-5\s/m);
  });

  const problems: { tokens: string[]; problem: string | undefined }[] = [
    { tokens: ['--port', '0'], problem: undefined },
    { tokens: ['--port=0', '--json'], problem: undefined },
    { tokens: ['--dataDir', 'x'], problem: undefined },
    { tokens: ['--no-json'], problem: undefined },
    { tokens: ['--no-port'], problem: 'Unknown flag --no-port' },
    { tokens: ['--no-json=1'], problem: 'Unknown flag --no-json' },
    { tokens: ['-p', '0'], problem: 'Unknown flag -p' },
    { tokens: ['--port'], problem: 'Flag --port needs a value' },
    { tokens: ['--port', '--json'], problem: 'Flag --port needs a value' },
    { tokens: ['--port', '-1'], problem: undefined },
    { tokens: ['FILE'], problem: undefined },
    { tokens: ['FILE', 'MORE'], problem: 'Unexpected argument MORE' },
    { tokens: ['--help', '-h'], problem: undefined },
    { tokens: ['--', '--anything', 'at', 'all'], problem: undefined },
  ];
  it.each(problems)('findArgumentProblem $tokens: $problem', ({ tokens, problem }) => {
    const args = {
      port: { type: 'string', description: '' },
      'data-dir': { type: 'string', description: '' },
      json: { type: 'boolean', description: '' },
      file: { type: 'positional', description: '' },
    } as const;
    expect(findArgumentProblem(args, tokens)).toBe(problem);
  });
});

describe('colours', () => {
  const scenarios: { name: string; isTTY: boolean; env: Record<string, string>; colours: boolean }[] = [
    { name: 'a terminal', isTTY: true, env: {}, colours: true },
    { name: 'a pipe', isTTY: false, env: {}, colours: false },
    { name: 'a terminal with NO_COLOR=1', isTTY: true, env: { NO_COLOR: '1' }, colours: false },
    { name: 'a terminal with NO_COLOR=yes (any value counts)', isTTY: true, env: { NO_COLOR: 'yes' }, colours: false },
    { name: 'a terminal with an empty NO_COLOR (unset, by the convention)', isTTY: true, env: { NO_COLOR: '' }, colours: true },
    { name: 'a terminal with TERM=dumb', isTTY: true, env: { TERM: 'dumb' }, colours: false },
    { name: 'a pipe with FORCE_COLOR=1', isTTY: false, env: { FORCE_COLOR: '1' }, colours: true },
    { name: 'a terminal with FORCE_COLOR=0', isTTY: true, env: { FORCE_COLOR: '0' }, colours: true },
    { name: 'a pipe with FORCE_COLOR=0', isTTY: false, env: { FORCE_COLOR: '0' }, colours: false },
    { name: 'FORCE_COLOR and NO_COLOR: NO_COLOR wins', isTTY: true, env: { FORCE_COLOR: '1', NO_COLOR: '1' }, colours: false },
  ];
  it.each(scenarios)('colorsWanted on $name: $colours', ({ isTTY, env, colours }) => {
    expect(colorsWanted({ isTTY }, env)).toBe(colours);
  });

  /**
   * The environment of a user's shell: none of the variables that turn colours off or on (the helpers set NO_COLOR=1,
   * and vitest sets TEST, which citty's help reads as "no colours").
   */
  const userShell = { DATA_DIR: untouched, NO_COLOR: undefined, FORCE_COLOR: undefined, TEST: undefined, VITEST: undefined, CI: undefined };

  /** Help and a refusal, printed with NO_COLOR and FORCE_COLOR as given. */
  const helpAndRefusal = async (variables: Record<string, string | undefined>) => {
    const help = await runCli(['site', '--help'], { ...userShell, ...variables });
    const refusal = await runCli(['site', 'list', '--json'], { ...userShell, ...variables });
    return { help: help.stdout, refusal: refusal.stderr };
  };

  it('piped: no escape codes in the help or the errors, with or without NO_COLOR; FORCE_COLOR brings them back', async () => {
    const piped = await helpAndRefusal({});
    expect(piped.help).toContain('USAGE sightline site');
    expect(piped.refusal).toContain('Error: Missing required argument: --workspace');
    expect(piped.help + piped.refusal).not.toContain(escape);

    const forced = await helpAndRefusal({ FORCE_COLOR: '1' });
    expect(forced.help).toContain(escape);
    expect(forced.refusal).toContain(`${escape}31mError:`);
    const both = await helpAndRefusal({ FORCE_COLOR: '1', NO_COLOR: 'yes' });
    expect(both.help + both.refusal).not.toContain(escape);
  });

  /** Runs the CLI on a pseudo-terminal (util-linux's script), as typed into a terminal: stdout and stderr both a TTY. */
  const onTerminal = async (args: string[], variables: Record<string, string | undefined>) => {
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    const commandLine = [process.execPath, join(repositoryRoot, 'bin', 'sightline'), ...args].map(quote).join(' ');
    const env = childEnvironment({ ...userShell, TERM: 'xterm-256color', ...variables });
    const run = await execFileAsync('script', ['-qec', commandLine, '/dev/null'], { env }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return run.stdout;
  };

  it('on a terminal: colours, unless NO_COLOR is set', async () => {
    const coloured = await onTerminal(['site', '--help'], {});
    expect(coloured).toContain('USAGE');
    expect(coloured).toContain(escape);
    const refusal = await onTerminal(['site', 'list'], {});
    expect(refusal).toContain(`${escape}31mError:`);

    for (const value of ['1', 'yes']) {
      const plain = await onTerminal(['site', '--help'], { NO_COLOR: value });
      expect(plain).toContain('USAGE sightline site');
      expect(plain).not.toContain(escape);
      expect(await onTerminal(['site', 'list'], { NO_COLOR: value })).not.toContain(escape);
    }
  });
});
