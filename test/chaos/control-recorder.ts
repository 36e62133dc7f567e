import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The executor's call log, kept outside the bot: each replica's `sim` executor is given its own control URL
 * (`http://127.0.0.1:P/<replica>`), and this server records every call (who, which worker, when it arrived, when
 * the simulator answered and how) before passing it to the simulator's control API.
 */
export interface RecordedRestart {
  readonly replica: string;
  readonly worker: string;
  readonly at: number;
  readonly answeredAt: number;
  readonly status: number;
}

export interface ControlRecorder {
  /** The control URL to give `replica`'s executor. */
  urlFor(replica: string): string;
  restarts(): readonly RecordedRestart[];
  /** Called when a restart call arrives, before it is passed on (the campaign times faults by it). */
  onRestart(listener: (call: { replica: string; worker: string; at: number }) => void): void;
  close(): Promise<void>;
}

const RESTART_PATH = /^\/([A-Za-z0-9_-]+)\/sim\/workers\/([^/]+)\/restart$/;

export async function startControlRecorder(
  controlUrl: string,
  now: () => number = Date.now,
): Promise<ControlRecorder> {
  const calls: RecordedRestart[] = [];
  const listeners: ((call: { replica: string; worker: string; at: number }) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://recorder");
    const slash = url.pathname.indexOf("/", 1);
    const replica = slash > 0 ? url.pathname.slice(1, slash) : "";
    const rest = slash > 0 ? url.pathname.slice(slash) : url.pathname;
    const match = RESTART_PATH.exec(url.pathname);
    const at = now();
    const worker = match ? decodeURIComponent(match[2] ?? "") : null;
    if (match && worker !== null) for (const l of listeners) l({ replica, worker, at });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${controlUrl}${rest}${url.search}`, {
        method: req.method ?? "GET",
        ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
        signal: AbortSignal.timeout(10_000),
      })
        .then(async (answer) => {
          const text = await answer.text();
          if (match && worker !== null)
            calls.push({ replica, worker, at, answeredAt: now(), status: answer.status });
          res.writeHead(answer.status, { "content-type": "application/json" });
          res.end(text);
        })
        .catch((err: unknown) => {
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: err instanceof Error ? err.message : String(err) }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    urlFor: (replica) => `http://127.0.0.1:${port}/${replica}`,
    restarts: () => [...calls].sort((a, b) => a.at - b.at),
    onRestart: (listener) => {
      listeners.push(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
