// A refused request whose body is still arriving (a 413, or a 401/415 answered before reading it) ends its
// connection once the answer is written, instead of reading and discarding the rest (1 GiB took 1.4 s to drain).
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How long a connection ended this way stays open, unread, before it is destroyed. Destroying a socket whose
 * receive buffer holds unread bytes sends a reset, which can make the client drop the answer it has not read yet;
 * until then the client has the answer and an end of stream (FIN), and what it keeps sending only fills kernel
 * buffers (nothing is read), then waits.
 */
export const unreadLingerMs = 2_000;

/**
 * Call before the answer's headers are written. When the body was not read to its end, the answer says
 * `Connection: close`; once it is written the server sends FIN, reads nothing more, and destroys the socket
 * `unreadLingerMs` later (or when it closes first). A complete body keeps the connection alive as usual.
 * @example closeUnreadConnection(request, response); response.writeHead(413, headers);
 */
export function closeUnreadConnection(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete) return;
  // Node then writes Connection: close and, once the answer is written, calls socket.destroySoon().
  response.shouldKeepAlive = false;
  const socket = request.socket;
  // Node's destroySoon ends the socket and destroys it as soon as the FIN is written: with unread bytes that is a
  // reset racing the answer. This one stops reading and gives the answer time to be read first.
  socket.destroySoon = () => {
    socket.end();
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), unreadLingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
