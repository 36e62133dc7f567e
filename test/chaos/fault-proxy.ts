import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy in front of one Connect worker (REST and metrics), for the chaos campaign: it passes
 * requests through, or holds each one for a while before passing it (a slow worker), or resets the connection of
 * each (a worker refusing). The same proxy serves the simulator and the lab, since it only sees HTTP.
 */
export type ProxyMode =
  | { readonly kind: "pass" }
  | { readonly kind: "slow"; readonly delayMs: number }
  | { readonly kind: "refuse" };

export interface FaultProxy {
  readonly url: string;
  readonly port: number;
  /** Points the proxy at another worker URL (bind the proxy first, then start the worker advertising its port). */
  retarget(target: string): void;
  setMode(mode: ProxyMode): void;
  /** How many requests each mode answered so far. */
  counts(): Readonly<Record<ProxyMode["kind"], number>>;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  let base = new URL(target);
  let mode: ProxyMode = { kind: "pass" };
  const counts = { pass: 0, slow: 0, refuse: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const current = mode;
    counts[current.kind] += 1;
    if (current.kind === "refuse") {
      req.socket.destroy();
      return;
    }
    const forward = () => {
      const upstream = request(
        {
          host: base.hostname,
          port: base.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: base.host },
          timeout: 30_000,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("timeout", () => upstream.destroy(new Error("upstream timeout")));
      upstream.on("error", () => {
        // The worker itself is down (its port closed): the caller sees what it would see without the proxy.
        req.socket.destroy();
      });
      req.pipe(upstream);
    };
    if (current.kind === "slow") {
      const timer = setTimeout(() => {
        timers.delete(timer);
        forward();
      }, current.delayMs);
      timers.add(timer);
    } else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    retarget: (next) => {
      base = new URL(next);
    },
    setMode: (next) => {
      mode = next;
    },
    counts: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
