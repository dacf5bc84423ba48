// An import's file as a stream of its decompressed bytes: gzip (by its magic bytes) through node:zlib, anything else
// as is; the compressed bytes read so far are counted for the progress the status answer and the CLI show.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface OpenedSource {
  stream: NodeJS.ReadableStream;
  /** Bytes of the file read so far. */
  bytesRead(): number;
}

async function startsWithGzipMagic(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** @example const source = await openSource('/tmp/events.ndjson.gz'); for await (const chunk of source.stream) … */
export async function openSource(path: string): Promise<OpenedSource> {
  const gzip = await startsWithGzipMagic(path);
  let counted = 0;
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counted += chunk.length;
      done(null, chunk);
    },
  });
  const passed = file.pipe(counter);
  file.on('error', (error) => counter.destroy(error));
  if (!gzip) return { stream: passed, bytesRead: () => counted };
  const gunzip = createGunzip();
  counter.on('error', (error) => gunzip.destroy(error));
  return { stream: passed.pipe(gunzip), bytesRead: () => counted };
}
