// `npm run bench -- ceiling` applies bench/ceiling.patch to a checkout of the code; this keeps the patch applying
// as the writer changes, so the benchmark cannot rot unnoticed.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('bench/ceiling.patch', () => {
  it('applies cleanly to the writer as it is now', () => {
    expect(() => execFileSync('git', ['apply', '--check', 'bench/ceiling.patch'], { cwd: root, stdio: 'pipe' })).not.toThrow();
  });

  it('only adds the CEILING_WRITER switch to the writer thread and the group commit', () => {
    const touched = execFileSync('git', ['apply', '--numstat', 'bench/ceiling.patch'], { cwd: root, encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[2]);
    expect(touched.sort()).toEqual(['src/ingest/store-group.ts', 'src/ingest/writer-thread.ts']);
  });
});
