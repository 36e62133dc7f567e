import { describe, expect, it } from "vitest";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { resumeDriver, startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down } from "./rollout-fixtures.js";
import { readEvery } from "./rollout-scripts.js";

/** The checkpoint replica A saved right after issuing step 1's restart (phase `restarting`), taken over at 2 s. */
const takenOver = () => {
  const checkpoint = startDriver().read(0, cluster()).state;
  expect(checkpoint.phase.kind).toBe("restarting");
  return resumeDriver(checkpoint).takeover(2_000, "replica-b");
};

describe("decide: takeover of a rollout checkpointed while restarting", () => {
  it("verifies the restart instead of issuing it again", () => {
    const d = takenOver();
    expect(d.lines).toEqual(["taken-over → rollout-taken-over | read-cluster(10000)"]);
    expect(d.state.phase).toMatchObject({
      kind: "verifying-restart",
      step: 1,
      since: 2_000,
      seenDown: false,
    });
    expect(d.eventsOf("rollout-taken-over")).toEqual([{ kind: "rollout-taken-over", owner: "replica-b" }]);
  });

  it.each<{ name: string; polls: [number, () => ClusterSnapshotBuilder, string][] }>([
    {
      name: "seen down, then back on the target",
      polls: [
        [10_000, () => down(cluster(), "worker-1"), "waiting-back"],
        [20_000, () => backHeld(cluster(), "worker-1"), "settling"],
      ],
    },
    {
      name: "back on the target between two polls",
      polls: [[10_000, () => backHeld(cluster(), "worker-1"), "settling"]],
    },
  ])("$name: settles it without restarting it again", ({ polls }) => {
    const d = takenOver();
    const phases = polls.map(([t, poll]) => d.read(t, poll()).state.phase.kind);
    expect(phases).toEqual(polls.map(([, , phase]) => phase));
    expect(d.lines.at(-1)).toBe("read → worker-back, gate-waiting | read-cluster(10000)");
    d.read(60_000, cluster("worker-1")).read(70_000, cluster("worker-1"));
    expect(d.eventsOf("step-settled").map((e) => e.worker)).toEqual(["worker-1"]);
    d.read(70_000, cluster("worker-1"));
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-2"]);
  });

  it("the old owner's late restart-accepted is ignored", () => {
    const d = takenOver().accepted(3_000, 1);
    expect(d.lines.at(-1)).toBe("accepted → - | read-cluster(10000)");
    expect(d.state.phase.kind).toBe("verifying-restart");
  });

  it("never confirmed for longer than 2 × expected restart (+ a poll): asks restart-unconfirmed", () => {
    const d = readEvery(takenOver(), 10_000, 50_000, () => cluster());
    expect(d.approvalsAsked()).toEqual([]);
    d.read(60_000, cluster());
    expect(d.pending()?.facts).toEqual({
      kind: "restart-unconfirmed",
      worker: "worker-1",
      seen: { reachable: true, version: "3.6.1" },
    });
    expect(d.pendingWorded()).toMatchObject({
      kind: "restart-unconfirmed",
      step: 1,
      options: ["approve", "abort"],
      prompt: "A restart of worker-1 was issued before a takeover but cannot be confirmed. Restart it again?",
      details: [
        "worker-1 answers and reports 3.6.1",
        "connect-roll never repeats a restart it cannot confirm without asking.",
      ],
    });
    expect(d.restarts).toEqual([]);
  });

  it("restart-unconfirmed: approve restarts it again as attempt 2", () => {
    const d = takenOver().read(60_000, cluster()).answer(61_000, "approve").read(61_000, cluster());
    expect(d.restarts).toEqual([
      { kind: "restart-worker", step: 1, stepId: "job-1:1:2", worker: "worker-1" },
    ]);
  });

  it("restart-unconfirmed: approve when the worker turned up on the target gates it instead of restarting or skipping it", () => {
    const d = takenOver().read(60_000, cluster()).answer(61_000, "approve").read(61_000, cluster("worker-1"));
    expect(d.lines.at(-1)).toBe("read → worker-back, gate-waiting | read-cluster(10000)");
    expect(d.state.phase.kind).toBe("settling");
    expect(d.restarts).toEqual([]);
    d.read(71_000, cluster("worker-1")).read(81_000, cluster("worker-1"));
    expect(d.eventsOf("step-settled").map((e) => e.worker)).toEqual(["worker-1"]);
  });

  it("restart-unconfirmed: abort finishes aborted", () => {
    const d = takenOver().read(60_000, cluster()).answer(61_000, "abort");
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
    expect(d.restarts).toEqual([]);
  });

  it("seen down and slow to return: the restart is confirmed, so it waits for it like any restart", () => {
    const d = takenOver();
    readEvery(d, 10_000, 60_000, () => down(cluster(), "worker-1"));
    expect(d.state.phase).toMatchObject({ kind: "waiting-back", step: 1, since: 2_000, seenDown: true });
    expect(d.approvalsAsked()).toEqual([]);
    readEvery(d, 70_000, 130_000, () => down(cluster(), "worker-1"));
    expect(d.approvalsAsked().map((a) => [a.kind, a.options])).toEqual([
      ["worker-not-back", ["restart-again", "continue-without", "keep-waiting", "abort"]],
    ]);
    expect(d.restarts).toEqual([]);
  });
});

describe("decide: takeover in other phases keeps the phase", () => {
  it.each([
    { phase: "waiting-back", drive: () => startDriver().read(0, cluster()).accepted(1_000) },
    {
      phase: "settling",
      drive: () =>
        startDriver().read(0, cluster()).accepted(1_000).read(20_000, backHeld(cluster(), "worker-1")),
    },
    {
      phase: "before-step",
      drive: () => startDriver().read(0, cluster()).failed(1_000, false).answer(2_000, "approve"),
    },
  ])("$phase", ({ phase, drive }) => {
    const d = resumeDriver(drive().state).takeover(25_000);
    expect(d.state.phase.kind).toBe(phase);
    expect(d.lastEvents).toEqual([{ kind: "rollout-taken-over", owner: "replica-b" }]);
  });
});
