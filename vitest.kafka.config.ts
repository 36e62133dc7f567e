import { defineConfig } from "vitest/config";

/**
 * The real-Kafka suite (`npm run test:kafka`): a KRaft broker and Connect workers as JVMs on loopback. Needs Java 17+
 * and Maven; one file at a time (JVMs on 2 cores), long timeouts (real time, real restarts).
 */
export default defineConfig({
  test: {
    include: ["test/kafka/**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
