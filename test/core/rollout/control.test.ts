import { describe, expect, it } from "vitest";
import { summarizeRollout } from "../../../src/core/rollout/summarize.js";
import { finishReasonText } from "../../../src/wording/reason-text.js";
import { clusterStateSentence } from "../../../src/wording/summary-text.js";
import { startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down } from "./rollout-fixtures.js";
import { rollFollower } from "./rollout-scripts.js";

describe("decide: pause and resume between steps", () => {
  it("pause before step 2 waits for resume; resume continues with worker-2", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    expect(d.state.phase).toEqual({ kind: "before-step", step: 2 });
    d.control(t1 + 1_000, "pause", "dave")
      .read(t1 + 5_000, cluster("worker-1"))
      .control(t1 + 9_000, "pause")
      .control(t1 + 10_000, "resume", "erin")
      .read(t1 + 10_000, cluster("worker-1"));
    expect(d.lines.slice(-5)).toEqual([
      "pause → rollout-paused | await-resume",
      "read → - | await-resume",
      "pause → - | await-resume",
      "resume → rollout-resumed | read-cluster(0)",
      "read → step-started | restart-worker(worker-2)",
    ]);
    expect(d.eventsOf("rollout-paused")).toEqual([{ kind: "rollout-paused", by: "dave", step: 2 }]);
    expect(d.eventsOf("rollout-resumed")).toEqual([{ kind: "rollout-resumed", by: "erin", step: 2 }]);
  });

  it("abort while paused finishes aborted", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.control(t1 + 1_000, "pause").control(t1 + 2_000, "abort", "dave");
    expect(d.eventsOf("rollout-finished")).toEqual([
      { kind: "rollout-finished", result: "aborted", reason: { kind: "aborted", by: "dave" } },
    ]);
  });
});

describe("decide: a control that arrives just before a restart is sent", () => {
  // The runner reads pending controls right before sending a restart and feeds them instead of sending it: the
  // worker was not touched, so the step goes back to pending and the control applies at once.
  it.each([
    { action: "abort", last: "abort → rollout-finished | finish(aborted)" },
    { action: "pause", last: "pause → rollout-paused | await-resume" },
  ] as const)("$action in 'restarting' applies at once and the step stays pending", ({ action, last }) => {
    const d = startDriver().read(0, cluster()).control(500, action, "dave");
    expect(d.lines.at(-1)).toBe(last);
    expect(d.state.steps[0]).toMatchObject({ status: "pending", attempts: 0, restartIssuedAt: null });
    expect(d.state.pendingControl).toBeNull();
    if (action === "abort")
      expect(d.state.phase).toMatchObject({
        result: "aborted",
        reason: { kind: "aborted-before-step", by: "dave", step: 1 },
      });
    else {
      expect(d.state.phase).toMatchObject({ kind: "paused", step: 1, by: "dave" });
      d.control(1_000, "resume").read(1_000, cluster());
      expect(d.lines.at(-1)).toBe("read → step-started | restart-worker(worker-1)");
      expect(d.state.steps[0]?.attempts).toBe(1);
    }
  });
});

describe("decide: control asked while a restart is in flight is deferred to before the next restart", () => {
  /** Brings step 1 to waiting-back (restart accepted at 1 s). */
  const inFlight = () => startDriver().read(0, cluster()).accepted(1_000);
  /** Takes step 1 from waiting-back to a passed gate (ending with the 70 s poll). */
  const finishStep1 = (d: ReturnType<typeof inFlight>) =>
    d
      .read(10_000, down(cluster(), "worker-1"))
      .read(20_000, backHeld(cluster(), "worker-1"))
      .read(60_000, cluster("worker-1"))
      .read(70_000, cluster("worker-1"));

  it.each([
    { action: "abort", last: "read → step-settled, rollout-finished | finish(aborted)" },
    { action: "pause", last: "read → step-settled, rollout-paused | await-resume" },
  ] as const)(
    "$action during waiting-back: worker-1 finishes its step, then $action applies",
    ({ action, last }) => {
      const d = inFlight().control(5_000, action, "dave");
      expect(d.lastEvents).toEqual([]);
      expect(d.state.phase.kind).toBe("waiting-back");
      expect(d.state.pendingControl).toEqual({ action, by: "dave", at: 5_000 });
      finishStep1(d);
      expect(d.lines.at(-1)).toBe(last);
      expect(d.state.pendingControl).toBeNull();
      expect(d.state.steps[0]?.status).toBe("settled");
      expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
      if (action === "abort")
        expect(d.state.phase).toMatchObject({
          result: "aborted",
          reason: { kind: "aborted-before-step", by: "dave", step: 2 },
        });
      else expect(d.state.phase).toMatchObject({ kind: "paused", step: 2, by: "dave" });
    },
  );

  it("resume before the step ends cancels a deferred pause", () => {
    const d = inFlight().control(5_000, "pause").control(5_500, "resume");
    expect(d.state.pendingControl).toBeNull();
    finishStep1(d).read(70_000, cluster("worker-1"));
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });

  it("a deferred abort is not undone by resume", () => {
    const d = inFlight().control(5_000, "abort").control(5_500, "resume");
    expect(d.state.pendingControl?.action).toBe("abort");
  });
});

describe("decide: abort while settling or awaiting an approval", () => {
  it("abort while settling finishes at once, with where the cluster stands in the reason", () => {
    const d = startDriver()
      .read(0, cluster())
      .accepted(1_000)
      .read(10_000, down(cluster(), "worker-1"))
      .read(20_000, backHeld(cluster(), "worker-1"))
      .control(25_000, "abort", "dave");
    expect(d.lines.at(-1)).toBe("abort → rollout-finished | finish(aborted)");
    const reason = d.eventsOf("rollout-finished")[0]?.reason;
    expect(reason).toMatchObject({
      kind: "aborted-while-settling",
      by: "dave",
      worker: "worker-1",
      gate: [{ code: "held-by-scheduled-delay" }, { code: "assignment-unstable" }],
    });
    expect(summarizeRollout(d.state, 30_000)).toMatchObject({
      result: "aborted",
      reason,
      totals: { wallMs: 25_000, stepsDone: 0 },
    });
    // In its words (src/wording/reason-text.ts), for the report, `run` and its summary.
    expect(reason && finishReasonText(reason)).toBe(
      "aborted by dave while worker-1 was settling (it is back; the gate had not passed: " +
        "3 tasks of worker-1 held by the scheduled delay: 40s left; assignment identical for 1 of 2 polls)",
    );
    expect(clusterStateSentence(d.state)).toBe(
      "worker-1 in flight (settling): 3 tasks of worker-1 held by the scheduled delay: 40s left; " +
        "worker-2, worker-3 not restarted.",
    );
  });

  it.each([
    {
      how: "the decision abort",
      reason: { kind: "aborted-at-prompt", by: "dave", approval: "blocking-findings" },
    },
    { how: "the abort command", reason: { kind: "aborted", by: "dave" } },
  ])("abort while awaiting an approval, by $how", ({ how, reason }) => {
    const d = startDriver().read(
      0,
      cluster().withConnector("orders", (c) => c.task(0, "FAILED", "worker-1")),
    );
    if (how === "the decision abort") d.answer(1_000, "abort", undefined, "dave");
    else d.control(1_000, "abort", "dave");
    expect(d.state.phase).toEqual({ kind: "finished", result: "aborted", reason });
    expect(d.action).toEqual({ kind: "finish", result: "aborted" });
    expect(d.restarts).toEqual([]);
  });
});
