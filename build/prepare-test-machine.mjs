// `npm test` runs this first ("pretest"): the suite needs a few programs beyond npm's packages, and on a fresh Debian
// machine (Node, npm, nothing else) it installs the missing ones with apt-get, saying so in one line. When everything
// is there it only looks at a few files: no apt call at all. When it cannot install, it fails naming the packages and
// the command that would: a test that needs a program is never skipped.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What the suite needs, each a Debian package: present when one of `paths` is an executable file, or `command` is
 * one in a directory of the PATH (or of root's: clickhouse-server is in /usr/sbin, which a user's PATH may lack).
 */
export const requirements = [
  // playwright-core drives Debian's chromium at this path (test/browser/, test/ui/): no browser is downloaded.
  { package: 'chromium', neededBy: 'the browser tests', paths: ['/usr/bin/chromium'] },
  { package: 'curl', neededBy: "the README's first-event test", command: 'curl' },
  { package: 'clickhouse-server', neededBy: 'the ClickHouse tests', command: 'clickhouse-server' },
  { package: 'clickhouse-client', neededBy: 'the ClickHouse tests', command: 'clickhouse-client' },
];

const systemDirectories = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * Where a requirement may be found, under `root` (`/` on a real machine; a test points it at an empty directory).
 * @example candidatePaths({ command: 'curl' }, '/', '/usr/bin') // ['/usr/bin/curl', '/usr/local/sbin/curl', …]
 */
export function candidatePaths(requirement, root, searchPath) {
  if (requirement.paths) return requirement.paths.map((path) => join(root, path));
  const directories = [...new Set([...searchPath.split(delimiter).filter((directory) => directory.startsWith('/')), ...systemDirectories])];
  return directories.map((directory) => join(root, directory, requirement.command));
}

export function isExecutableFile(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The requirements none of whose candidate paths `isPresent` accepts. */
export function missingRequirements({ root = '/', searchPath = '', isPresent = isExecutableFile } = {}) {
  return requirements.filter((requirement) => !candidatePaths(requirement, root, searchPath).some(isPresent));
}

/**
 * How to install `packages`: the two apt-get command lines (with sudo when not root), or why it cannot be done.
 * @example installPlan(['curl'], { isRoot: true, hasAptGet: true, hasSudo: false }).commands
 *   // [['apt-get', 'update'], ['apt-get', 'install', '-y', '--no-install-recommends', 'curl']]
 */
export function installPlan(packages, { isRoot, hasAptGet, hasSudo, aptGet = 'apt-get' }) {
  const prefix = isRoot ? [] : ['sudo'];
  const commands = [
    [...prefix, aptGet, 'update'],
    [...prefix, aptGet, 'install', '-y', '--no-install-recommends', ...packages],
  ];
  const shown = commands.map((command) => command.join(' ')).join(' && ');
  if (!hasAptGet) return { commands, shown, refusal: `${aptGet} was not found (this installs from Debian's packages)` };
  if (!isRoot && !hasSudo) return { commands, shown, refusal: 'not running as root, and sudo was not found' };
  return { commands, shown };
}

function describe(missing) {
  return missing.map((requirement) => `${requirement.package} (${requirement.neededBy})`).join(', ');
}

/** One line on stderr naming what is missing, why it could not be installed and the command that installs it; exit 1. */
function fail(missing, reason, shown) {
  const them = missing.length === 1 ? 'it' : 'them';
  process.stderr.write(`prepare-test-machine: missing ${describe(missing)}; cannot install ${them}: ${reason}. Install ${them}, then run npm test again: ${shown}\n`);
  process.exit(1);
}

/** Checks, installs what is missing, checks again. SIGHTLINE_TEST_MACHINE_ROOT and SIGHTLINE_APT_GET are for its tests. */
function main() {
  const root = process.env.SIGHTLINE_TEST_MACHINE_ROOT ?? '/';
  const aptGet = process.env.SIGHTLINE_APT_GET ?? 'apt-get';
  const searchPath = process.env.PATH ?? '';
  const missing = missingRequirements({ root, searchPath });
  if (missing.length === 0) return;

  const packages = missing.map((requirement) => requirement.package);
  const findCommand = (name) => (name.includes('/') ? isExecutableFile(name) : candidatePaths({ command: name }, '/', searchPath).some(isExecutableFile));
  const plan = installPlan(packages, { isRoot: process.getuid?.() === 0, hasAptGet: findCommand(aptGet), hasSudo: findCommand('sudo'), aptGet });
  if (plan.refusal) fail(missing, plan.refusal, plan.shown);
  process.stdout.write(`prepare-test-machine: missing ${describe(missing)}: installing with ${plan.shown}\n`);
  for (const [file, ...args] of plan.commands) {
    const run = spawnSync(file, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (run.status !== 0) fail(missing, `${[file, ...args].join(' ')} ${run.error ? `could not run (${run.error.message})` : `exited with ${run.status ?? run.signal}`}`, plan.shown);
  }
  const stillMissing = missingRequirements({ root, searchPath });
  if (stillMissing.length > 0) {
    const where = stillMissing.map((requirement) => requirement.paths?.join(' or ') ?? `${requirement.command} on the PATH`).join(', ');
    fail(stillMissing, `apt-get ran, but there is still no ${where}`, plan.shown);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
