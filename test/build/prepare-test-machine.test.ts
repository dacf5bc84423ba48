// build/prepare-test-machine.mjs, which `npm test` runs first: what it finds missing, how it would install it, and
// the script itself run as npm runs it, on this machine (everything present: no apt call) and on an empty root
// directory with a stand-in apt-get that records its calls and "installs" by creating the programs (the real
// apt-get is never run by a test).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installPlan, missingRequirements } from '../../build/prepare-test-machine.mjs';
import { makeTempDir } from '../_setup.ts';
import { repositoryRoot } from '../cli/cli-helpers.ts';

const script = join(repositoryRoot, 'build', 'prepare-test-machine.mjs');
const allPackages = ['chromium', 'curl', 'clickhouse-server', 'clickhouse-client'];
/** Where Debian puts each program. */
const debianPaths = ['/usr/bin/chromium', '/usr/bin/curl', '/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-client'];

describe('what is missing', () => {
  const scenarios: { name: string; present: string[]; searchPath: string; missing: string[] }[] = [
    { name: 'everything where Debian puts it', present: debianPaths, searchPath: '/usr/bin:/bin', missing: [] },
    { name: 'nothing', present: [], searchPath: '/usr/bin:/bin', missing: allPackages },
    { name: 'no chromium at /usr/bin/chromium, even with one on the PATH', present: ['/usr/local/bin/chromium', ...debianPaths.slice(1)], searchPath: '/usr/local/bin:/usr/bin', missing: ['chromium'] },
    { name: 'curl in a PATH directory of its own', present: ['/opt/tools/curl', '/usr/bin/chromium', '/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-client'], searchPath: '/opt/tools:/usr/bin', missing: [] },
    { name: "clickhouse-server in /usr/sbin, which a user's PATH lacks", present: debianPaths, searchPath: '/home/me/bin:/usr/bin:/bin', missing: [] },
    { name: 'the ClickHouse client without its server', present: debianPaths.filter((path) => !path.endsWith('clickhouse-server')), searchPath: '/usr/bin', missing: ['clickhouse-server'] },
    { name: 'relative PATH entries are not searched', present: ['tools/curl', '/usr/bin/chromium', '/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-client'], searchPath: 'tools', missing: ['curl'] },
  ];
  it.each(scenarios)('$name: $missing', ({ present, searchPath, missing }) => {
    const found = missingRequirements({ root: '/', searchPath, isPresent: (path) => present.includes(path) });
    expect(found.map((requirement) => requirement.package)).toEqual(missing);
  });

  it('looks under the root it is given', () => {
    const found = missingRequirements({ root: '/nonexistent', searchPath: '/usr/bin', isPresent: (path) => debianPaths.includes(path) });
    expect(found.map((requirement) => requirement.package)).toEqual(allPackages);
  });
});

describe('how it installs', () => {
  const update = ['apt-get', 'update'];
  const install = ['apt-get', 'install', '-y', '--no-install-recommends', 'chromium', 'curl'];
  const scenarios = [
    { name: 'as root: apt-get itself', machine: { isRoot: true, hasAptGet: true, hasSudo: false }, commands: [update, install], refusal: undefined },
    { name: 'as a user with sudo: through sudo', machine: { isRoot: false, hasAptGet: true, hasSudo: true }, commands: [['sudo', ...update], ['sudo', ...install]], refusal: undefined },
    { name: 'as a user without sudo: refused', machine: { isRoot: false, hasAptGet: true, hasSudo: false }, commands: [['sudo', ...update], ['sudo', ...install]], refusal: 'not running as root, and sudo was not found' },
    { name: 'without apt-get: refused', machine: { isRoot: true, hasAptGet: false, hasSudo: true }, commands: [update, install], refusal: "apt-get was not found (this installs from Debian's packages)" },
  ];
  it.each(scenarios)('$name', ({ machine, commands, refusal }) => {
    const plan = installPlan(['chromium', 'curl'], machine);
    expect(plan.commands).toEqual(commands);
    expect(plan.shown).toBe(commands.map((command) => command.join(' ')).join(' && '));
    expect(plan.refusal).toBe(refusal);
  });
});

/** A stand-in apt-get: appends each call (and DEBIAN_FRONTEND) to `log`; `install` creates the programs under `root`. */
function fakeAptGet(directory: string, exitStatus = 0): string {
  const path = join(directory, 'apt-get');
  const installs = [
    ['chromium', '/usr/bin/chromium'],
    ['curl', '/usr/bin/curl'],
    ['clickhouse-server', '/usr/sbin/clickhouse-server'],
    ['clickhouse-client', '/usr/bin/clickhouse-client'],
  ].map(([name, file]) => `    ${name}) mkdir -p "$SIGHTLINE_TEST_MACHINE_ROOT${file!.replace(/\/[^/]+$/, '')}" && printf '#!/bin/sh\\n' > "$SIGHTLINE_TEST_MACHINE_ROOT${file}" && chmod +x "$SIGHTLINE_TEST_MACHINE_ROOT${file}" ;;`);
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      'echo "$* (DEBIAN_FRONTEND=$DEBIAN_FRONTEND)" >> "$FAKE_APT_LOG"',
      `[ "$1" = install ] || exit ${exitStatus}`,
      `[ ${exitStatus} = 0 ] || exit ${exitStatus}`,
      'for name in "$@"; do',
      '  case "$name" in',
      ...installs,
      '  esac',
      'done',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

function givePrograms(root: string, paths: string[]): void {
  for (const path of paths) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), '#!/bin/sh\n');
    chmodSync(join(root, path), 0o755);
  }
}

function runScript(variables: Record<string, string>) {
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin', ...variables } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const loggedCalls = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

describe('the script, as npm test runs it', () => {
  it('on this machine, which has them all, prints nothing and never calls apt-get', () => {
    const directory = makeTempDir();
    const log = join(directory, 'apt.log');
    const run = runScript({ SIGHTLINE_APT_GET: fakeAptGet(directory), FAKE_APT_LOG: log });
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(loggedCalls(log)).toEqual([]);
  });

  it('on an empty machine, says what is missing in one line, installs it all with one apt-get install, and the next run calls nothing', () => {
    const directory = makeTempDir();
    const root = join(directory, 'root');
    mkdirSync(root);
    const log = join(directory, 'apt.log');
    const variables = { SIGHTLINE_TEST_MACHINE_ROOT: root, SIGHTLINE_APT_GET: fakeAptGet(directory), FAKE_APT_LOG: log };
    const run = runScript(variables);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const shown = `${variables.SIGHTLINE_APT_GET} update && ${variables.SIGHTLINE_APT_GET} install -y --no-install-recommends ${allPackages.join(' ')}`;
    expect(run.stdout).toBe(
      `prepare-test-machine: missing chromium (the browser tests), curl (the README's first-event test), clickhouse-server (the ClickHouse tests), clickhouse-client (the ClickHouse tests): installing with ${shown}\n`,
    );
    expect(loggedCalls(log)).toEqual(['update (DEBIAN_FRONTEND=noninteractive)', `install -y --no-install-recommends ${allPackages.join(' ')} (DEBIAN_FRONTEND=noninteractive)`]);

    expect(runScript(variables)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(loggedCalls(log)).toHaveLength(2);
  });

  it('installs only what is missing', () => {
    const directory = makeTempDir();
    const root = join(directory, 'root');
    givePrograms(root, ['/usr/bin/chromium', '/usr/bin/curl']);
    const log = join(directory, 'apt.log');
    const run = runScript({ SIGHTLINE_TEST_MACHINE_ROOT: root, SIGHTLINE_APT_GET: fakeAptGet(directory), FAKE_APT_LOG: log });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^prepare-test-machine: missing clickhouse-server \(the ClickHouse tests\), clickhouse-client \(the ClickHouse tests\): installing/);
    expect(loggedCalls(log)[1]).toBe('install -y --no-install-recommends clickhouse-server clickhouse-client (DEBIAN_FRONTEND=noninteractive)');
  });

  it('fails with exit 1, naming the packages and the command, when apt-get fails', () => {
    const directory = makeTempDir();
    const root = join(directory, 'root');
    givePrograms(root, debianPaths.slice(1));
    const aptGet = fakeAptGet(directory, 100);
    const run = runScript({ SIGHTLINE_TEST_MACHINE_ROOT: root, SIGHTLINE_APT_GET: aptGet, FAKE_APT_LOG: join(directory, 'apt.log') });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `prepare-test-machine: missing chromium (the browser tests); cannot install it: ${aptGet} update exited with 100. Install it, then run npm test again: ${aptGet} update && ${aptGet} install -y --no-install-recommends chromium\n`,
    );
  });

  it('fails with exit 1, naming the packages and the command, when there is no apt-get', () => {
    const directory = makeTempDir();
    const run = runScript({ SIGHTLINE_TEST_MACHINE_ROOT: join(directory, 'nonexistent'), SIGHTLINE_APT_GET: join(directory, 'no-apt-get') });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`prepare-test-machine: missing chromium (the browser tests), curl (the README's first-event test), clickhouse-server (the ClickHouse tests), clickhouse-client (the ClickHouse tests); cannot install them: ${join(directory, 'no-apt-get')} was not found`);
    expect(run.stderr).toContain(`install -y --no-install-recommends ${allPackages.join(' ')}\n`);
  });

  it('fails when apt-get succeeds but the program is still not there', () => {
    const directory = makeTempDir();
    const root = join(directory, 'root');
    givePrograms(root, debianPaths.slice(0, 3));
    // An apt-get that installs nothing.
    const aptGet = join(directory, 'apt-get');
    writeFileSync(aptGet, '#!/bin/sh\nexit 0\n');
    chmodSync(aptGet, 0o755);
    const run = runScript({ SIGHTLINE_TEST_MACHINE_ROOT: root, SIGHTLINE_APT_GET: aptGet });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('missing clickhouse-client (the ClickHouse tests); cannot install it: apt-get ran, but there is still no clickhouse-client on the PATH.');
  });
});
