import { connect, type Socket } from 'node:net';

export interface RawExchange {
  status: number;
  headers: string;
  body: string;
  closedBy: 'server' | 'timeout';
}

/**
 * One HTTP exchange over a bare socket: `head` is written as given, then `send` writes whatever follows. Unlike
 * fetch, it keeps the answer when the server answers early and closes while the body is still being written (a
 * 413 for an oversized body): the write's EPIPE is expected there, the answer is what the test reads.
 */
export function rawExchange(
  baseUrl: string,
  head: string,
  send: (socket: Socket) => Promise<void> = async () => undefined,
): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const guard = setTimeout(() => finish('timeout'), 15_000);
    const finish = (closedBy: 'server' | 'timeout') => {
      clearTimeout(guard);
      socket.destroy();
      const [headers = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(headers.split(' ')[1] ?? 0), headers, body, closedBy });
    };
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('close', () => finish('server'));
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(head);
      send(socket).catch(reject);
    });
  });
}
