import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

/**
 * Three projects, so a change can run the fast set in seconds (`npm run test:fast`, `vitest run --project unit`);
 * `vitest run` (and `npm test`) runs all three. The real-Kafka suite is a fourth, `kafka`, in vitest.kafka.config.ts
 * (`npm run test:kafka`): it needs Java and Maven.
 *
 * - `redis`: needs a Redis server: the shared one on 127.0.0.1:6379 (REDIS_URL), or redis-server, Sentinel and Cluster
 *   processes of the test's own.
 * - `e2e`: starts child processes (the CLI, commands, scripts, sshd, vitest itself), drives Chromium, or runs whole
 *   rollouts against the simulator (the demo, the bench's end-to-end run, `run`).
 * - `unit`: everything else, and the default for a new file: pure tests and in-process ones (the simulator, fakes and
 *   stand-in servers on loopback HTTP). It needs nothing from the machine; test/support/unit-isolation.ts fails a
 *   unit test that starts a process or connects to Redis or off the machine, naming the project it belongs in.
 */
const REDIS = [
  "test/redis/**/*.test.ts",
  "test/chat/app/**/*.test.ts",
  "test/jobs/redis/redis-job-store.test.ts",
  "test/composition/rollout-engine-redis.test.ts",
  "test/cli/operator-commands.test.ts",
  "test/cli/run-preflight.test.ts",
  "test/cli/run-change-window.test.ts",
  "test/cli/serve-command.test.ts",
  "test/cli/rollback-command.test.ts",
];
const E2E = [
  // child processes
  "test/cli/cli-process.test.ts",
  "test/cli/run-crash-takeover.test.ts",
  "test/cli/fleet-resume.test.ts",
  "test/restart/command/command-restarter.test.ts",
  "test/lab/lab-tools.test.ts",
  "test/lint/check-layers.test.ts",
  "test/support/check-prerequisites.test.ts",
  // ssh, the demo, the browser
  "test/deploy/vm-ssh.test.ts",
  "test/sandbox/demo-cli.test.ts",
  "test/sandbox/demo-browser.test.ts",
  // whole rollouts
  "test/composition/rollout-engine.test.ts",
  "test/composition/record-lost.test.ts",
  "test/chaos/chaos-campaign.test.ts",
  "test/chaos/lost-record-replay.test.ts",
  "test/load/load.test.ts",
  "test/composition/data-flow-gate.test.ts",
  "test/bench/window-pace-e2e.test.ts",
  "test/bench/learn-restart-e2e.test.ts",
  "test/cli/run-command.test.ts",
  "test/cli/run-chart.test.ts",
  "test/cli/plan-notes.test.ts",
];
const ALWAYS_EXCLUDED = ["test/kafka/**", "**/node_modules/**"];

// A listed file that moved would silently fall back into `unit`: every entry must name something that exists.
for (const entry of [...REDIS, ...E2E]) {
  if (!existsSync(entry.split("*")[0] ?? entry))
    throw new Error(`vitest.config.ts lists ${entry}, which matches no file: update the project lists`);
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...ALWAYS_EXCLUDED, ...REDIS, ...E2E],
          setupFiles: ["test/support/unit-isolation.ts"],
          // One module graph per worker instead of one per file: importing Bolt, pino and undici 87 times was
          // most of the project's time. No unit test changes global state (env, timers, module mocks).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "redis",
          include: REDIS,
          exclude: [...ALWAYS_EXCLUDED, ...E2E],
          // Redis is checked once, up front, with one message (test/support/check-prerequisites.ts).
          globalSetup: ["test/support/check-prerequisites.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: E2E,
          exclude: ALWAYS_EXCLUDED,
          // Redis, and Chromium and sshd when the run includes their tests.
          globalSetup: ["test/support/check-prerequisites.ts"],
        },
      },
    ],
  },
});
