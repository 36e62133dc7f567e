import { describe, expect, it } from "vitest";
import { eventJson, wordedSummary } from "../../src/cli/run-json.js";
import type { RolloutEvent } from "../../src/core/rollout/rollout-io.js";
import { summarizeRollout } from "../../src/core/rollout/summarize.js";
import { aRollout } from "../chat/views/rollout-state-builder.js";

describe("run --json: facts worded at the edge, the text fields kept", () => {
  it.each<[RolloutEvent, unknown]>([
    [
      { kind: "step-skipped", step: 2, worker: "connect-2", reason: { kind: "on-target", version: "3.7.1" } },
      { kind: "step-skipped", step: 2, worker: "connect-2", reason: "already runs 3.7.1" },
    ],
    [
      { kind: "step-reordered", step: 6, worker: "connect-2", reason: { kind: "leader-now" } },
      {
        kind: "step-reordered",
        step: 6,
        worker: "connect-2",
        reason: "it is the group leader now; the leader is restarted last",
      },
    ],
    [
      {
        kind: "rollout-finished",
        result: "aborted",
        reason: { kind: "aborted-before-step", by: "U2", step: 3 },
      },
      { kind: "rollout-finished", result: "aborted", reason: "aborted by U2 before step 3" },
    ],
    [
      { kind: "rollout-paused", by: "U2", step: 3 },
      { kind: "rollout-paused", by: "U2", step: 3 },
    ],
  ])("%j", (event, json) => expect(eventJson(event)).toEqual(json));

  it("the summary carries the reason and where the cluster stands in words, in the fields' old order", () => {
    const state = aRollout({ workers: 3 })
      .settled(1)
      .finished("aborted", { kind: "aborted-before-step", by: "U2", step: 2 })
      .build();
    const summary = wordedSummary(summarizeRollout(state, state.finishedAt ?? 0), state);
    expect(summary).toMatchObject({
      result: "aborted",
      reason: "aborted by U2 before step 2",
      clusterState: "connect-1 restarted on 3.7.1; connect-2, connect-3 not restarted.",
    });
    expect(Object.keys(summary)).toEqual([
      "kind",
      "jobId",
      "cluster",
      "target",
      "result",
      "reason",
      "steps",
      "totals",
      "approvals",
      "clusterState",
      "planVsReality",
    ]);
    const running = aRollout().build();
    expect(wordedSummary(summarizeRollout(running, 0), running).reason).toBeNull();
  });
});
