import { describe, expect, it } from "vitest";
import { CHECKPOINT_SIZES, runCheckpointBench } from "../../bench/checkpoint-bench.js";

describe("checkpoint size", () => {
  // The 10,000-task shape and its 256 KB budget are `npm run bench`'s (about two minutes); this runs the same whole
  // restart at 1,000 tasks, where a record weighs about 29 bytes per task (Brotli finds more repetition the larger
  // the record: 20 per task at 10,000). 32 per task catches a new field that repeats per task or per connector.
  it("keeps every stored record of a whole 1,000-task restart within 32 bytes per task, and decodes the largest", async () => {
    const size = CHECKPOINT_SIZES[0];
    const figures = await runCheckpointBench(size);
    expect(figures.tasks).toBe(1000);
    expect(figures.saves).toBeGreaterThan(20);
    expect(figures.maxStoredBytes).toBeLessThanOrEqual(32 * figures.tasks);
    expect(figures.maxJsonBytes).toBeGreaterThan(10 * figures.maxStoredBytes);
  }, 120_000);
});
