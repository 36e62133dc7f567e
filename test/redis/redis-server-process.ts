import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConnectionOptions } from "node:tls";
import { Redis } from "ioredis";
import { waitFor } from "../support/wait-for.js";

/**
 * A redis-server (or redis-sentinel) process of a test's own, on a loopback port of its own, stopped by its pid.
 * Never the machine's shared Redis on 6379.
 */
export interface RedisServerProcess {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  pid(): number;
  /** SIGSTOP: the process keeps its sockets but answers nothing (a frozen VM, a long GC pause). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and directory (an AOF or RDB there is loaded). */
  restart(): Promise<void>;
  /** A short-lived admin client (`await using` is not available on Node 20: call quit). */
  admin(): Redis;
  /** SIGTERM (SIGKILL after 3 s) and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** `redis-server` arguments besides port, bind and dir, e.g. ["--appendonly", "yes"]. */
  readonly args?: readonly string[];
  /** Run `redis-server <configFile> --sentinel` instead: the file is written by the caller into `dir`. */
  readonly sentinelConfig?: (port: number, dir: string) => Promise<string>;
  readonly port?: number;
  /** TLS options for the readiness probe, when the server listens with TLS only (`--port 0 --tls-port P`). */
  readonly probeTls?: ConnectionOptions | undefined;
  /** The binary, e.g. /usr/bin/redis-sentinel (given the config file only). Default /usr/bin/redis-server. */
  readonly bin?: string | undefined;
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released for the server to take). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPing(
  port: number,
  child: ChildProcess,
  tls?: ConnectionOptions,
  timeoutMs = 10_000,
): Promise<void> {
  await waitFor(
    `redis on ${port} to answer PING`,
    async () => {
      if (child.exitCode !== null) throw new Error(`redis on ${port} exited with ${child.exitCode}`);
      const probe = new Redis({
        host: "127.0.0.1",
        port,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        enableOfflineQueue: false,
        ...(tls ? { tls } : {}),
      });
      probe.on("error", () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === "PONG";
      } catch {
        return false; // not up yet
      } finally {
        probe.disconnect();
      }
    },
    { timeoutMs, intervalMs: 25 },
  );
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), "connect-roll-redis-"));
  const sentinelFile = options.sentinelConfig ? await options.sentinelConfig(port, dir) : null;
  const launch = (): ChildProcess => {
    const argv =
      sentinelFile !== null
        ? options.bin !== undefined
          ? [sentinelFile]
          : [sentinelFile, "--sentinel"]
        : [
            ...(options.probeTls ? ["--port", "0", "--tls-port"] : ["--port"]),
            String(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            dir,
            "--save",
            "",
            "--appendonly",
            "no",
            ...(options.args ?? []),
          ];
    const child = spawn(options.bin ?? "/usr/bin/redis-server", argv, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.resume();
    child.stderr?.resume();
    return child;
  };
  let child = launch();
  await waitForPing(port, child, options.probeTls);
  let stopped = false;
  const signal = (name: NodeJS.Signals) => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
      process.kill(child.pid, name);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    pid: () => child.pid ?? -1,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    async kill() {
      signal("SIGCONT");
      signal("SIGKILL");
      await exited(child);
    },
    async restart() {
      await exited(child);
      child = launch();
      await waitForPing(port, child, options.probeTls);
    },
    admin: () => {
      const client = new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1 });
      client.on("error", () => undefined);
      return client;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      signal("SIGCONT");
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 3_000);
      await exited(child);
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
