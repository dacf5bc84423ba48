// Builds dist/ once before the suite: the CLI tests run the bundle, every app's projector thread runs
// dist/projector-thread.mjs, and INGEST_WRITER=thread runs dist/writer-thread.mjs.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['build/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
