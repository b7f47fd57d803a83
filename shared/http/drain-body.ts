import type { IncomingMessage } from 'node:http';

/**
 * How much of a refused body is read and thrown away so that its sender sees the answer: up to `maxBytes`, for up
 * to `maxMs`, and only while bytes keep coming (`idleMs` without one ends it). A client that sends more, slower, or
 * stops gets the answer and a closed connection.
 */
export const DRAIN_LIMITS = { maxBytes: 256 * 1024 * 1024, maxMs: 15_000, idleMs: 2_000 };

/**
 * Reads and discards what is left of a request body, within `limits`; resolves true when the body ended. Why: an
 * answer sent while the client is still sending, followed by a close, makes the client's kernel drop the unread
 * answer on the reset that the next bytes provoke. The client sees a broken pipe instead of its 413 or 404, and a
 * phone then sends the same batch again for ever. Read to its end, the body leaves the answer readable.
 */
export function drainBody(req: IncomingMessage, limits = DRAIN_LIMITS): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const idle = setTimeout(() => finish(false), limits.idleMs);
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      clearTimeout(idle);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limits.maxBytes) return finish(false);
      idle.refresh();
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), limits.maxMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.resume();
  });
}
