// Builds the admin UI (web/admin/) with esbuild: minified, content-hashed file names, then writes every file into one
// JSON text, dist/ui-assets.uibundle (URL path → type, body, ETag), which the server bundle embeds (src/ui/assets.ts).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'web', 'admin');
export const uiBundlePath = join(root, 'dist', 'ui-assets.uibundle');

const types = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8', '.svg': 'image/svg+xml' };
const typeOf = (name) => types[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
const etagOf = (body) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

/** Builds the UI and returns the files' paths and gzip-free sizes (the test measures gzipped ones). */
export async function buildUi() {
  const result = await build({
    entryPoints: { app: join(source, 'main.js'), style: join(source, 'style.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: join(root, 'dist', 'ui'),
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const files = {};
  const names = {};
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    const path = `/ui/${name}`;
    files[path] = { type: typeOf(name), body: file.text, etag: etagOf(file.contents), immutable: true };
    names[name.replace(/-[A-Z0-9]+(\.\w+)$/, '$1')] = path;
  }
  const html = readFileSync(join(source, 'index.html'), 'utf8')
    .replace('{{app.js}}', names['app.js'])
    .replace('{{style.css}}', names['style.css']);
  files['/'] = { type: typeOf('.html'), body: html, etag: etagOf(html), immutable: false };
  mkdirSync(dirname(uiBundlePath), { recursive: true });
  writeFileSync(uiBundlePath, JSON.stringify(files));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildUi();
