// The body of one stream-v2 response. Frames wait here until the response reads them, one chunk per read, so the
// stream knows what it holds for its client (here and in the Node response) and how much the client has taken.
const encoder = new TextEncoder();

/** What a Node response tells about the bytes written to it that its socket has not taken yet. */
export interface ResponseBacklog {
  readonly writableLength: number;
}

export interface StreamBufferSource {
  /** The response wants a chunk: hand over what is held, then read on. */
  pull(): void;
  /** The response is gone (the client left). */
  cancel(): void;
}

/**
 * A ReadableStream with no queue of its own (high-water mark 0): each read takes the oldest held chunk.
 * @example const buffer = new StreamBuffer({ pull, cancel }, nodeResponse); buffer.push('event: cursor\n…'); return new Response(buffer.body);
 */
export class StreamBuffer {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly chunks: Uint8Array[] = [];
  private heldBytes = 0;
  private handedBytes = 0;
  /** A read is waiting for a chunk. */
  private wanted = false;
  private closing = false;
  private over = false;

  constructor(source: StreamBufferSource, private readonly response?: ResponseBacklog) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          this.wanted = true;
          this.handOver();
          source.pull();
        },
        cancel: () => {
          this.drop();
          source.cancel();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Bytes held for the client: chunks not yet read, and what the Node response has not passed to its socket. */
  bufferedBytes(): number {
    return this.heldBytes + (this.response?.writableLength ?? 0);
  }

  /** Bytes the client's side has taken so far: passed to the socket (or read, without a Node response). */
  takenBytes(): number {
    return this.handedBytes - (this.response?.writableLength ?? 0);
  }

  /** Whether the body is still open for pushes (not closing, closed, failed or cancelled). */
  get open(): boolean {
    return !this.closing && !this.over;
  }

  push(text: string): void {
    if (!this.open) return;
    const chunk = encoder.encode(text);
    this.chunks.push(chunk);
    this.heldBytes += chunk.byteLength;
    this.handOver();
  }

  /** Ends the body once what is held has been read. */
  close(): void {
    if (!this.open) return;
    this.closing = true;
    this.handOver();
  }

  /** Ends the body at once, dropping what is held: the reader gets `reason`. */
  fail(reason: Error): void {
    if (this.over) return;
    this.drop();
    try {
      this.controller.error(reason);
    } catch {
      // already closed
    }
  }

  private handOver(): void {
    if (this.over) return;
    const chunk = this.wanted ? this.chunks.shift() : undefined;
    if (chunk) {
      this.wanted = false;
      this.heldBytes -= chunk.byteLength;
      this.handedBytes += chunk.byteLength;
      this.controller.enqueue(chunk);
    } else if (this.closing && this.chunks.length === 0) {
      this.over = true;
      this.controller.close();
    }
  }

  private drop(): void {
    this.over = true;
    this.chunks.length = 0;
    this.heldBytes = 0;
  }
}
