// The entries of a zip file, one after another, each as a stream of its decompressed bytes (fflate's streaming
// Unzip): the file is read once, and paused while an entry's reader falls behind, so memory stays bounded.
import { PassThrough, type Readable } from 'node:stream';
import { Unzip, UnzipInflate } from 'fflate';

export interface ZipEntry {
  name: string;
  stream: Readable;
}

/**
 * Yields each entry once its first bytes arrive; the caller must read an entry's stream to its end (or resume) before
 * asking for the next. A malformed zip rejects.
 */
export async function* readZipEntries(input: NodeJS.ReadableStream): AsyncGenerator<ZipEntry> {
  const ready: ZipEntry[] = [];
  let wake: (() => void) | undefined;
  let failure: unknown;
  let ended = false;
  let current: PassThrough | undefined;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (file) => {
    const stream = new PassThrough();
    current = stream;
    file.ondata = (error, chunk, final) => {
      if (error) {
        stream.destroy(error);
        return;
      }
      // Backpressure: the zip's reading waits for this entry's reader.
      if (!stream.write(Buffer.from(chunk))) {
        input.pause();
        stream.once('drain', () => input.resume());
      }
      if (final) stream.end();
    };
    ready.push({ name: file.name, stream });
    wake?.();
    file.start();
  };
  input.on('data', (chunk: Buffer) => {
    try {
      unzip.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    } catch (error) {
      failure = error;
      current?.destroy(error as Error);
      wake?.();
    }
  });
  input.on('end', () => {
    try {
      unzip.push(new Uint8Array(0), true);
    } catch (error) {
      failure = error;
    }
    ended = true;
    wake?.();
  });
  input.on('error', (error) => {
    failure = error;
    wake?.();
  });
  for (;;) {
    if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
    const next = ready.shift();
    if (next) {
      yield next;
      continue;
    }
    if (ended) return;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
}
