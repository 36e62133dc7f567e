import { defineConfig } from "vitest/config";

/**
 * The real-Kafka suite, the `kafka` project (`npm run test:kafka`, or `vitest run --config vitest.kafka.config.ts
 * --project kafka`): a KRaft broker and Connect workers as JVMs on loopback. Needs Java 17+ and Maven; one file at a
 * time (JVMs on 2 cores), long timeouts (real time, real restarts). Not in vitest.config.ts, so that `vitest run` and
 * `npm test` leave it out.
 */
export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    projects: [
      {
        extends: true,
        test: {
          name: "kafka",
          include: ["test/kafka/**/*.test.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
