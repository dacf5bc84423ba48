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

async function startsWith(path: string, magic: number[]): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(magic.length);
    const { bytesRead } = await handle.read(head, 0, magic.length, 0);
    return bytesRead === magic.length && magic.every((byte, index) => head[index] === byte);
  } finally {
    await handle.close();
  }
}

const startsWithGzipMagic = (path: string) => startsWith(path, [0x1f, 0x8b]);

/** Whether the file is a zip (its local file header's signature, PK\3\4). */
export const isZipFile = (path: string): Promise<boolean> => startsWith(path, [0x50, 0x4b, 0x03, 0x04]);

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
