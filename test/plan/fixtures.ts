// Bundles the plan tests share, starting with the example of CONTRACT section 3, and a temp dir to write them into.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The CONTRACT section 3 example, verbatim. */
export function contractBundle() {
  return {
    plan: 'shop',
    version: '1.4.0',
    events: {
      pageview: { type: 'object', additionalProperties: true },
      signup: {
        type: 'object',
        required: ['props'],
        properties: {
          props: { type: 'object', required: ['plan'], additionalProperties: false, properties: { plan: { enum: ['free', 'pro'] } } },
        },
      },
      '*': { type: 'object', additionalProperties: true, required: [] },
    } as Record<string, unknown>,
  };
}

/** An event as a browser would send it: the envelope plus `fields`. */
export function wireEvent(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: '7d0a9c1e-3b7f-4c1a-9d2e-1f2a3b4c5d6e',
    site_id: 'shop',
    anon_id: 'anon-1',
    ts: '2026-01-15T10:00:00Z',
    url: 'https://shop.example/signup',
    ...fields,
  };
}

/** A scratch directory removed by `remove()`; `write` puts JSON (or raw text) into a file and returns its path. */
export function scratchDirectory(prefix: string) {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  return {
    directory,
    write(name: string, content: unknown): string {
      const path = join(directory, name);
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return path;
    },
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
