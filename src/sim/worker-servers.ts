import { readFileSync } from "node:fs";
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

/**
 * The lowest port the OS hands to outgoing connections. A worker closes its port while it is down and binds the
 * same one again; a port from the ephemeral range could meanwhile be taken by some client socket (EADDRINUSE), so
 * worker ports are chosen below it.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2_048 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const isAddrInUse = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === "EADDRINUSE";

/** Binds a free port below the ephemeral range (random, a few tries), falling back to any port. */
async function listenStable(server: Server, host: string): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1_024, high - 12_000);
  for (let attempt = 0; attempt < 40; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    try {
      return await listen(server, host, port);
    } catch (err) {
      if (!isAddrInUse(err)) throw err;
    }
  }
  return listen(server, host, 0);
}

/** Binds the worker's own port again after a restart, waiting out a brief EADDRINUSE. */
async function relisten(server: Server, host: string, port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await listen(server, host, port);
      return;
    } catch (err) {
      if (!isAddrInUse(err) || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
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
      for (const [i, server] of servers.entries()) {
        const port = wanted[i];
        ports[i] =
          port === undefined || port === 0
            ? await listenStable(server, host)
            : await listen(server, host, port);
      }
      return [...ports];
    },
    open: (index) =>
      enqueue(index, async (s) => {
        if (!s.listening) await relisten(s, host, ports[index] ?? 0);
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
