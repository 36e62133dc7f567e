import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The workers' HTTP servers: port 0 at the first start, then the same port on every restart; a stopped worker's
 * port is closed (connections refused). Open/close requests are serialised per worker; `settle()` awaits them.
 */
export interface WorkerServers {
  /** Binds every server (port 0 unless given) and returns the ports, in order. */
  bind(ports?: readonly number[]): Promise<number[]>;
  open(index: number): void;
  close(index: number): void;
  settle(): Promise<void>;
  /** Clears pending hang timers and closes everything. */
  shutdown(): Promise<void>;
  /** Runs `fn` after `ms` real milliseconds unless shut down first. */
  delay(ms: number, fn: () => void): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export function createWorkerServers(host: string, handlers: readonly Handler[]): WorkerServers {
  const servers = handlers.map((h) => createServer({ keepAliveTimeout: 1000 }, h));
  const ports: number[] = servers.map(() => 0);
  const chains: Promise<void>[] = servers.map(() => Promise.resolve());
  const timers = new Set<NodeJS.Timeout>();
  let errors: unknown[] = [];

  const enqueue = (index: number, step: (s: Server) => Promise<void>): void => {
    const server = servers[index];
    const prev = chains[index];
    if (!server || !prev) return;
    chains[index] = prev.then(() => step(server)).catch((err: unknown) => void errors.push(err));
  };

  return {
    async bind(wanted = []) {
      for (const [i, server] of servers.entries()) ports[i] = await listen(server, host, wanted[i] ?? 0);
      return [...ports];
    },
    open: (index) =>
      enqueue(index, async (s) => {
        if (!s.listening) await listen(s, host, ports[index] ?? 0);
      }),
    close: (index) => enqueue(index, closeServer),
    async settle() {
      await Promise.all(chains);
      if (errors.length > 0) {
        const first = errors[0];
        errors = [];
        throw first;
      }
    },
    async shutdown() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(chains);
      await Promise.all(servers.map(closeServer));
    },
    delay(ms, fn) {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    },
  };
}
