// `sightline version [--json]` (and `sightline --version`): Sightline's version, Node's and SQLite's.
import { defineCommand } from 'citty';
import { describeVersions, runtimeVersions } from '../version.ts';

export const versionCommand = defineCommand({
  meta: { name: 'version', description: "Print Sightline's version, Node.js's and SQLite's" },
  args: { json: { type: 'boolean', description: 'Print machine-readable JSON', default: false } },
  run: ({ args }) => {
    const versions = runtimeVersions();
    process.stdout.write(`${args.json ? JSON.stringify(versions) : describeVersions(versions)}\n`);
  },
});
