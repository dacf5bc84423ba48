// Runs the real, bundled CLI (node bin/sightline …) as child processes on a fresh DATA_DIR, and waits on their output.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';

const execFileAsync = promisify(execFile);

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const launcher = join(repositoryRoot, 'bin', 'sightline');

/** Variables the server and CLI read: removed from the inherited environment so every test states its own. */
const configurationVariables = [
  'HOST', 'PORT', 'DATA_DIR', 'ADMIN_TOKEN', 'REQUIRE_API_KEY', 'SCHEMA_BUNDLE_PATH', 'SCHEMA_MODE', 'TRUST_PROXY',
  'GEOIP_DB', 'INTERNAL_IPS', 'METRICS_PUBLIC', 'ALLOW_PRIVATE_WEBHOOK_TARGETS', 'RATE_LIMIT_SITE', 'RATE_LIMIT_IP',
  'SYNCHRONOUS', 'INGEST_WRITER', 'IMPORT_MAX_BYTES', 'READ_WAIT_MS',
  'EVENT_STREAMS_PER_SITE', 'EVENT_STREAMS_PER_CREDENTIAL', 'EVENT_STREAMS_TOTAL', 'EVENT_STREAM_BUFFER_BYTES', 'EVENT_STREAM_HEARTBEAT_MS',
];

/**
 * The child's environment: the parent's without Sightline's variables, plus `variables`. NODE_ENV=test is set on
 * purpose: the CLI must print what the user asked for whatever the logging level of the environment.
 */
export function childEnvironment(variables: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', NO_COLOR: '1' };
  for (const name of configurationVariables) delete env[name];
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Builds dist/main.mjs when it is older than the sources (no parameters: it is passed to beforeAll as is). */
export function ensureBuilt(): Promise<void> {
  return buildIfStale('build.mjs', 120_000);
}

/** Builds the single executable, dist/sightline, when it is older than its inputs (a cold build compiles an addon). */
export function ensureBinaryBuilt(): Promise<void> {
  return buildIfStale('build-binary.mjs', 600_000);
}

/**
 * Runs build/`script` --if-stale. Test files run in parallel, so one build at a time: a lock file created with
 * O_EXCL, waited on (not timed) until its holder removes it. A lock older than `staleLockMs` was left by a crashed
 * run and is taken over.
 */
async function buildIfStale(script: 'build.mjs' | 'build-binary.mjs', staleLockMs: number): Promise<void> {
  mkdirSync(join(repositoryRoot, 'dist'), { recursive: true });
  const lock = join(repositoryRoot, 'dist', script === 'build.mjs' ? '.build.lock' : `.${script}.lock`);
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > staleLockMs) rmSync(lock, { force: true });
      } catch {
        // removed by its holder meanwhile
      }
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  try {
    await execFileAsync(process.execPath, [join(repositoryRoot, 'build', script), '--if-stale'], { cwd: repositoryRoot, maxBuffer: 16 * 2 ** 20 });
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * What runs the CLI: `node bin/sightline` from the repository by default; or an executable (dist/sightline), or
 * another launcher script run by node (an older release's bin/sightline), in `cwd`.
 */
export interface Launch {
  executable?: string;
  script?: string;
  cwd?: string;
}

function commandLine(args: string[], launch: Launch): [string, string[]] {
  return launch.executable ? [launch.executable, args] : [process.execPath, [launch.script ?? launcher, ...args]];
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/sightline ...args` to completion; never throws on a non-zero exit.
 * @example const result = await runCli(['workspace', 'list', '--json'], { DATA_DIR: dataDir });
 */
export async function runCli(args: string[], variables: Record<string, string | undefined> = {}, launch: Launch = {}): Promise<CliResult> {
  try {
    const [file, fileArgs] = commandLine(args, launch);
    const { stdout, stderr } = await execFileAsync(file, fileArgs, {
      cwd: launch.cwd ?? repositoryRoot,
      env: childEnvironment(variables),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number') throw error;
    return { code: failure.code, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** Parses the JSON a `--json` command printed on stdout. */
export function parseJsonOutput<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
  }
}

export interface ServerProcess {
  child: ChildProcess;
  /** Everything printed so far on stdout and stderr. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first. */
  waitForOutput(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node bin/sightline ...args` in the background (e.g. `serve --port 0`).
 * @example const server = startCli(['serve', '--port', '0'], { DATA_DIR }); await server.waitForOutput(/listening on (http:\S+)/);
 */
export function startCli(args: string[], variables: Record<string, string | undefined> = {}, launch: Launch = {}): ServerProcess {
  const [file, fileArgs] = commandLine(args, launch);
  const child = spawn(file, fileArgs, {
    cwd: launch.cwd ?? repositoryRoot,
    env: childEnvironment(variables),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let hasExited = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    // 'close' comes after the output streams have ended, so stdout is complete by then.
    child.once('close', (code, signal) => {
      hasExited = true;
      notify();
      done({ code, signal });
    });
  });
  const waitForOutput = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((done, fail) => {
      const check = () => {
        const match = stdout.match(pattern);
        if (match) {
          listeners.delete(check);
          done(match);
        } else if (hasExited) {
          listeners.delete(check);
          fail(new Error(`process exited before printing ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    waitForOutput,
    exited,
  };
}

/** Stops a background process this test started, if it is still running. */
export async function stopIfRunning(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}

/** Reads DATA_DIR/sightline.db directly (read-only), as an operator with sqlite3 would. */
export function readDatabase<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  // The event log beside it, as the server attaches it (src/db/open.ts).
  const log = join(dirname(path), 'events.db');
  if (existsSync(log)) db.prepare('ATTACH DATABASE ? AS eventlog').run(log);
  try {
    return read(db);
  } finally {
    db.close();
  }
}
