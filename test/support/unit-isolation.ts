import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net, { isIP } from "node:net";
import { relative } from "node:path";
import { afterAll, afterEach, expect } from "vitest";

/**
 * The `unit` project's setup file (vitest.config.ts): a unit test needs nothing from the machine. It may start
 * servers in-process and talk to them on loopback, but not start a process, connect to Redis or connect off the
 * machine. Whatever it does is let through (the test still runs as it would elsewhere) and recorded; the test then
 * fails, saying what it did and which project to list the file in instead.
 */

/** Shared by every file a worker runs (the project does not isolate files: the wrappers are installed once). */
const state = globalThis as typeof globalThis & { __connectRollUnitViolations?: string[] };
const installed = state.__connectRollUnitViolations !== undefined;
state.__connectRollUnitViolations ??= [];
const violations = state.__connectRollUnitViolations;

function redisAddress(
  env: Readonly<Record<string, string | undefined>>,
): { host: string; port: number } | null {
  try {
    const url = new URL(env.REDIS_URL || "redis://127.0.0.1:6379");
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") return null;
    return { host: url.hostname, port: Number(url.port || 6379) };
  } catch {
    return null;
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);
const redis = redisAddress(process.env);

/** The host and port of a `socket.connect(...)` call (options, normalized [options, cb] or port, host). */
function target(args: readonly unknown[]): { host: string; port: string } | null {
  const first = args[0];
  const options = (Array.isArray(first) ? first[0] : first) as
    | { host?: string; port?: number | string; path?: string }
    | number
    | string
    | undefined;
  if (typeof options === "object" && options !== null) {
    if (options.path !== undefined) return null; // a Unix socket or pipe
    return { host: options.host ?? "localhost", port: String(options.port) };
  }
  if (typeof options === "string" && !/^\d+$/.test(options)) return null;
  return { host: typeof args[1] === "string" ? args[1] : "localhost", port: String(options) };
}

function describeConnection(host: string, port: string): string | null {
  if (redis !== null && port === String(redis.port) && (host === redis.host || LOOPBACK.has(host)))
    return `connects to Redis at ${host}:${port}: list the file in the redis project`;
  const loopback = LOOPBACK.has(host) || (isIP(host) === 4 && host.startsWith("127."));
  return loopback ? null : `connects to ${host}:${port}, off the machine: it is not a unit test`;
}

function install(): void {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const to = target(args);
    const problem = to === null ? null : describeConnection(to.host, to.port);
    if (problem !== null) violations.push(problem);
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;

  const spawners = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
  for (const name of spawners) {
    const original = childProcess[name] as (...a: unknown[]) => unknown;
    (childProcess as unknown as Record<string, unknown>)[name] = function (
      this: unknown,
      ...args: unknown[]
    ) {
      violations.push(`starts a process (${name} ${String(args[0])}): list the file in the e2e project`);
      return original.apply(this, args);
    };
  }
  // `import { spawn } from "node:child_process"` sees the wrapped functions too.
  syncBuiltinESMExports();
}
if (!installed) install();

function report(): void {
  if (violations.length === 0) return;
  const seen = [...new Set(violations.splice(0))];
  const file = relative(process.cwd(), expect.getState().testPath ?? "this file");
  throw new Error(
    `${file} is in the unit project (vitest.config.ts), which needs nothing from the machine, but it:\n${seen
      .map((v) => `  - ${v}`)
      .join("\n")}`,
  );
}

afterEach(report);
afterAll(report);
