import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-Kafka suite runs with `npm run test:kafka` (vitest.kafka.config.ts): it needs Java and Maven.
    exclude: ["test/kafka/**", "**/node_modules/**"],
    // Redis and Chromium are checked once, up front, with one message (test/support/check-prerequisites.ts).
    globalSetup: ["test/support/check-prerequisites.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
