import { describe, expect, it } from "vitest";
import { runLoad } from "./load-run.js";
import { describeLoad } from "./run-load.js";

/**
 * A small load run (`npm run load` runs the full one): three real `serve` replicas on one Redis roll six simulated
 * clusters at once in two channels, the fake Slack Web API enforcing Slack's per-method rate limits.
 */
describe("load: many rollouts at once under Slack's rate limits", () => {
  it("finishes every rollout with one thread and one report, each worker restarted once", async () => {
    const result = await runLoad({
      clusters: 6,
      replicas: 3,
      channels: 2,
      workers: 4,
      seed: 11,
      deadlineMs: 180_000,
    });
    const said = describeLoad(result).join("\n");
    expect(result.problems, said).toEqual([]);
    // The rate limits were met, not avoided: the bot was answered 429 and still finished.
    expect(
      result.slack.reduce((n, m) => n + m.limited, 0),
      said,
    ).toBeGreaterThan(0);
  }, 240_000);
});
