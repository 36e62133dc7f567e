import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** A real `node:http` server on 127.0.0.1:0 that records what it receives. */
export interface LoopbackServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Resolves once `count` requests have arrived (at once if they have). */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | null;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, index: number) => void;

/** The requests a server got, and waits for a number of them. */
function createRequestLog() {
  const requests: RecordedRequest[] = [];
  const waiters = new Set<{ count: number; resolve: () => void }>();
  return {
    requests,
    record(req: IncomingMessage): number {
      requests.push({
        method: req.method ?? "GET",
        path: req.url ?? "/",
        authorization: req.headers.authorization ?? null,
      });
      for (const w of waiters) {
        if (requests.length < w.count) continue;
        waiters.delete(w);
        w.resolve();
      }
      return requests.length - 1;
    },
    received(count: number): Promise<void> {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.add({ count, resolve }));
    },
  };
}

export async function startLoopbackServer(handler: Handler): Promise<LoopbackServer> {
  const log = createRequestLog();
  const { requests, received } = log;
  const server = createServer((req, res) => handler(req, res, log.record(req)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on which nothing listens: opened, then closed. */
export async function refusedUrl(): Promise<string> {
  const s = await startLoopbackServer(() => undefined);
  await s.close();
  return s.url;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Collects pino's output lines (for "never logged" assertions). */
export function memoryStream(): { write(line: string): void; text(): string } {
  const lines: string[] = [];
  return { write: (line: string) => void lines.push(line), text: () => lines.join("") };
}

/** The same over HTTPS, with the given certificate. */
export async function startTlsLoopbackServer(
  cert: string,
  key: string,
  handler: Handler,
): Promise<LoopbackServer> {
  const log = createRequestLog();
  const server = createHttpsServer({ cert, key }, (req, res) => handler(req, res, log.record(req)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests: log.requests,
    received: log.received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
