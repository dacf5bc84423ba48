// What a newcomer reads points inside the repository: no file names a path beside the checkout (the sibling "shared"
// folder of the development machines, which a clone does not have), and every relative link of README.md and
// docs/*.md opens a file that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../cli/cli-helpers.ts';

const outsidePath = ['..', 'shared'].join('/');

/** The repository's own text files (no dependencies, no build output). */
function textFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (['node_modules', '.git', 'dist', 'test-artifacts'].includes(entry.name)) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...textFiles(path));
    else if (/\.(md|ts|mjs|js|json|sql|html|css)$/.test(entry.name) || entry.name === 'run' || entry.name === 'sightline') files.push(path);
  }
  return files;
}

const markdownFiles = () => [join(repositoryRoot, 'README.md'), join(repositoryRoot, 'CHANGELOG.md'), ...readdirSync(join(repositoryRoot, 'docs')).map((name) => join(repositoryRoot, 'docs', name))];

describe('the documentation', () => {
  it(`no file names ${outsidePath}`, () => {
    const naming = textFiles(repositoryRoot)
      .filter((path) => readFileSync(path, 'utf8').includes(outsidePath))
      .map((path) => relative(repositoryRoot, path));
    expect(naming).toEqual([]);
  });

  it('every relative link of README.md and docs/ opens a file of the repository', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(dirname(file), target))) broken.push(`${relative(repositoryRoot, file)}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
