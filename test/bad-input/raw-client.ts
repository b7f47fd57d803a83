import { Agent, request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  /** The parsed JSON body, or the text when it is not JSON (an empty string for HEAD). */
  body: any;
  ms: number;
}

/**
 * Sends one request with node's own client, which (unlike fetch) sends any method (TRACE, PROPFIND) and any
 * content type as given. Connections are kept alive across calls, as a phone's HTTP stack does.
 */
export function createRawClient(baseUrl: string, maxSockets = 16) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const url = new URL(baseUrl);
  return {
    send(method: string, path: string, body: string, contentType: string): Promise<RawAnswer> {
      const started = performance.now();
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {
                // left as text for the assertion to show
              }
              resolve({ status: res.statusCode ?? 0, body: parsed, ms: performance.now() - started });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
