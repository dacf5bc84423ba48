// Before the suite: builds dist/ once (the CLI tests run the bundle, every app's projector thread runs
// dist/projector-thread.mjs, and INGEST_WRITER=thread runs dist/writer-thread.mjs), and says which programs the tests
// need are missing when vitest was started without `npm test`, which installs them (build/prepare-test-machine.mjs).
import { execFileSync } from 'node:child_process';
import { missingRequirements } from '../build/prepare-test-machine.mjs';

export default function setup(): void {
  const missing = missingRequirements({ searchPath: process.env.PATH ?? '' });
  if (missing.length > 0) {
    const names = missing.map((requirement) => `${requirement.package} (${requirement.neededBy})`).join(', ');
    console.warn(`Missing ${names}: the tests that use them will fail. npm test installs them (node build/prepare-test-machine.mjs).`);
  }
  execFileSync(process.execPath, ['build/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
