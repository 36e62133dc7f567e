import { accessSync, constants } from "node:fs";
import { Redis } from "ioredis";

/**
 * What `npm test` needs from the machine, checked once before any test runs (the `globalSetup` of the `redis` and
 * `e2e` projects in vitest.config.ts; vitest runs it only for a project the run has files of): Redis on
 * 127.0.0.1:6379 (or REDIS_URL) for both, and for `e2e` Debian's Chromium at /usr/bin/chromium (or CHROMIUM_PATH) and
 * Debian's sshd, each only when the run includes the test that needs it. The `unit` project needs nothing. A missing
 * one is one clear message instead of dozens of failing tests and pages of ioredis errors.
 */

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

/** The Chromium the browser test drives. */
export function chromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
}

export const BROWSER_TEST = "test/sandbox/demo-browser.test.ts";
export const SSH_TEST = "test/deploy/vm-ssh.test.ts";
export const SSHD_PATH = "/usr/sbin/sshd";

/**
 * Whether a vitest command line selects the browser test: no file filter (the whole suite), or a filter the test's
 * path contains (vitest's own filter rule). `vitest run test/cli/x.test.ts` does not need Chromium.
 */
export function selectsBrowserTest(argv: readonly string[]): boolean {
  return selectsTest(argv, BROWSER_TEST);
}

/** Whether a vitest command line selects the test file at `path` (no filter, or a filter the path contains). */
export function selectsTest(argv: readonly string[], path: string): boolean {
  const i = argv.findIndex((a) => /vitest(\.mjs)?$/.test(a));
  const rest = argv.slice(i + 1).filter((a) => a !== "run" && a !== "watch" && a !== "related");
  const filters: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const a = rest[k] ?? "";
    if (a.startsWith("-")) {
      // Options that take a value (--config X, -t X, --project X, …): skip the value too.
      if (
        !a.includes("=") &&
        /^(-t|-c|--config|--project|--testNamePattern|--reporter|--dir|--root)$/.test(a)
      )
        k++;
      continue;
    }
    filters.push(a.replace(/^\.\//, ""));
  }
  return filters.length === 0 || filters.some((f) => path.includes(f));
}

export interface PrerequisiteChecks {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Check for Chromium too (the run includes the browser test). Default true. */
  readonly browser?: boolean;
  /** Check for sshd too (the run includes the VM/ssh test). Default false. */
  readonly sshd?: boolean;
  /** Resolves when Redis at `url` answers PING; rejects with the reason otherwise. */
  readonly pingRedis?: (url: string) => Promise<void>;
  readonly isExecutable?: (path: string) => boolean;
}

async function pingRedisOnce(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let cause: Error | null = null;
  redis.on("error", (err: Error) => {
    cause ??= err;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    throw cause ?? e;
  } finally {
    redis.disconnect();
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Every missing prerequisite, as a line saying what to do; [] when all are there. */
export async function missingPrerequisites(checks: PrerequisiteChecks): Promise<string[]> {
  const problems: string[] = [];
  const url = checks.env.REDIS_URL || DEFAULT_REDIS_URL;
  try {
    await (checks.pingRedis ?? pingRedisOnce)(url);
  } catch (e) {
    problems.push(
      `Redis at ${url.replace(/\/\/[^@/]*@/, "//")} does not answer (${(e as Error).message}): start one (e.g. apt-get install redis-server; redis-server --daemonize yes) or set REDIS_URL`,
    );
  }
  const chromium = chromiumPath(checks.env);
  if (checks.browser !== false && !(checks.isExecutable ?? executable)(chromium))
    problems.push(
      `Chromium is not at ${chromium} (the demo's browser test drives it): apt-get install chromium, or set CHROMIUM_PATH`,
    );
  if (checks.sshd === true && !(checks.isExecutable ?? executable)(SSHD_PATH))
    problems.push(
      `${SSHD_PATH} is missing (the VM/ssh test starts its own sshd on a loopback port): apt-get install openssh-server`,
    );
  return problems;
}

/** The message vitest shows when something is missing. */
export function prerequisitesMessage(problems: readonly string[]): string {
  return `npm test cannot run on this machine:\n${problems.map((p) => `  - ${p}`).join("\n")}\n(.ci/run installs and starts them.)`;
}

/** What a project's files need besides Redis, for a vitest command line: Chromium and sshd only in `e2e`. */
export function projectNeeds(project: string, argv: readonly string[]): { browser: boolean; sshd: boolean } {
  if (project !== "e2e") return { browser: false, sshd: false };
  return { browser: selectsBrowserTest(argv), sshd: selectsTest(argv, SSH_TEST) };
}

/** vitest globalSetup (per project): refuses to start the run while a prerequisite of `project` is missing. */
export default async function setup(project: { readonly name: string }): Promise<void> {
  if (process.env.CONNECT_ROLL_SKIP_PREREQUISITES === "1") return;
  const problems = await missingPrerequisites({
    env: process.env,
    ...projectNeeds(project.name, process.argv),
  });
  if (problems.length === 0) return;
  const error = new Error(prerequisitesMessage(problems));
  error.stack = error.message;
  throw error;
}
