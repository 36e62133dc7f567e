import { describe, expect, it } from "vitest";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import { finishReasonText } from "../../../src/wording/reason-text.js";
import { type DriverOptions, startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down, TO } from "./rollout-fixtures.js";
import { readEvery, rollFollower } from "./rollout-scripts.js";

/** worker-1 restarted (issued at 0, accepted at 1 s) and never back; `workerReturnMs` 120 s unless told. */
const stuck = () => down(cluster(), "worker-1");
/** A gate that calls a step slow only 5 minutes past its deadline: a worker back this late is not asked about at once. */
const LENIENT_GATE = { consecutivePolls: 2, quietPeriodMs: 10_000, expectedSettleMs: 300_000 };
const started = (options: DriverOptions = {}) => startDriver(options).read(0, cluster()).accepted(1_000);
/** Waiting since 1 s: the 120 s pass at 121 s, and the read at 131 s asks. */
const asked = (options: DriverOptions = {}) => readEvery(started(options), 11_000, 131_000, stuck);

function finishReason(state: RolloutState) {
  return state.phase.kind === "finished" ? state.phase.reason : null;
}

describe("decide: a worker not back within gate.workerReturnMs (120 s)", () => {
  it("asks worker-not-back once 120 s have passed: restart it again, continue without it, keep waiting, abort", () => {
    const d = readEvery(started(), 11_000, 121_000, stuck);
    expect(d.approvalsAsked()).toEqual([]);
    d.read(131_000, stuck());
    expect(d.lines.at(-1)).toBe("read → approval-requested | await-approval(worker-not-back)");
    expect(d.pending()?.facts).toEqual({
      kind: "worker-not-back",
      worker: "worker-1",
      targetVersion: TO,
      waitedMs: 130_000,
      seen: { reachable: false, error: "connection refused" },
      attempts: 1,
    });
    expect(d.pendingWorded()).toMatchObject({
      kind: "worker-not-back",
      step: 1,
      prompt:
        "worker-1 has not come back on 3.7.1 after 2m10s. Restart it again, continue without it, or abort?",
      options: ["restart-again", "continue-without", "keep-waiting", "abort"],
    });
    expect(d.pendingWorded()?.details[0]).toBe("it does not answer: connection refused");
  });

  it("restart it again: the restart goes through the executor again as attempt 2, then the step goes on as usual", () => {
    const d = asked().answer(132_000, "restart-again").read(132_000, stuck());
    expect(d.restarts).toEqual([
      { kind: "restart-worker", step: 1, stepId: "job-1:1:1", worker: "worker-1" },
      { kind: "restart-worker", step: 1, stepId: "job-1:1:2", worker: "worker-1" },
    ]);
    expect(d.state.steps[0]).toMatchObject({
      status: "restart-issued",
      attempts: 2,
      restartIssuedAt: 132_000,
    });
    d.accepted(133_000).read(150_000, backHeld(cluster(), "worker-1"));
    expect(d.eventsOf("worker-back")).toMatchObject([{ worker: "worker-1", restartMs: 18_000 }]);
    expect(d.state.phase.kind).toBe("settling");
  });

  it("restart it again after the worker came back meanwhile: gated as back, not restarted a second time", () => {
    const d = asked({ settings: { gatePolicy: LENIENT_GATE } })
      .answer(132_000, "restart-again")
      .read(132_000, backHeld(cluster(), "worker-1"));
    expect(d.restarts).toHaveLength(1);
    expect(d.lastEvents.map((e) => e.kind)).toEqual(["worker-back", "gate-waiting"]);
  });

  it("a second timeout after restarting again asks again, with the attempts counted", () => {
    const d = asked().answer(132_000, "restart-again").read(132_000, stuck()).accepted(133_000);
    readEvery(d, 143_000, 253_000, stuck);
    expect(d.approvalsAsked()).toHaveLength(1);
    d.read(263_000, stuck());
    expect(d.pending()?.facts).toMatchObject({ kind: "worker-not-back", attempts: 2, waitedMs: 130_000 });
    expect(d.pendingWorded()?.details).toContain("restarted 2 times in this rollout");
  });

  it("continue without it: the step is skipped with the reason and the next worker restarted", () => {
    const d = asked().answer(132_000, "continue-without", undefined, "erin").read(132_000, stuck());
    expect(d.lines.slice(-2)).toEqual([
      "continue-without → approval-decided, step-skipped | read-cluster(0)",
      "read → step-started | restart-worker(worker-2)",
    ]);
    expect(d.state.steps[0]).toMatchObject({
      status: "skipped",
      note: { kind: "not-back", by: "erin", waitedMs: 130_000 },
    });
    expect(d.eventsOf("step-skipped")).toEqual([
      {
        kind: "step-skipped",
        step: 1,
        worker: "worker-1",
        reason: { kind: "not-back", by: "erin", waitedMs: 130_000 },
      },
    ]);
  });

  it("continue without it: later gates go by the workers left, and the rollout ends failed saying so", () => {
    const d = asked().answer(132_000, "continue-without", undefined, "erin");
    // worker-1 stays down; its tasks were dealt to worker-2 meanwhile.
    const without1 = () =>
      cluster()
        .withWorker("worker-1", (w) => w.unreachable())
        .withEachConnector((c) => c.moveTasks("worker-1", "worker-2", "RUNNING"));
    const t = rollFollower(d, "worker-2", 140_000, without1);
    const upgraded2 = () => without1().withWorker("worker-2", (w) => w.version(TO));
    rollFollower(d, "worker-3", t + 10_000, upgraded2);
    expect(d.eventsOf("step-settled").map((e) => e.worker)).toEqual(["worker-2", "worker-3"]);
    d.read(
      t + 90_000,
      upgraded2().withWorker("worker-3", (w) => w.version(TO)),
    );
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "failed" });
    const reason = finishReason(d.state);
    expect(reason).toEqual({ kind: "not-brought-back", notBack: ["worker-1"], continued: [] });
    expect(reason && finishReasonText(reason)).toBe(
      "every other worker was restarted, but worker-1 was not brought back (continued without by approval)",
    );
  });

  it("abort: finished aborted at the worker-not-back prompt, nothing more restarted", () => {
    const d = asked().answer(132_000, "abort", undefined, "erin");
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
    expect(finishReason(d.state)).toEqual({
      kind: "aborted-at-prompt",
      by: "erin",
      approval: "worker-not-back",
    });
    expect(d.restarts).toHaveLength(1);
  });

  it("keep waiting: asked again only after another 120 s", () => {
    const d = asked().answer(132_000, "keep-waiting");
    expect(d.state.phase).toMatchObject({ kind: "waiting-back", since: 132_000 });
    readEvery(d, 142_000, 252_000, stuck);
    expect(d.approvalsAsked()).toHaveLength(1);
    d.read(262_000, stuck());
    expect(d.approvalsAsked().map((a) => [a.kind, a.askedAt])).toEqual([
      ["worker-not-back", 131_000],
      ["worker-not-back", 262_000],
    ]);
  });

  it("keep waiting, then the worker comes back: its gate starts as usual", () => {
    const d = asked({ settings: { gatePolicy: LENIENT_GATE } })
      .answer(132_000, "keep-waiting")
      .read(142_000, backHeld(cluster(), "worker-1"));
    expect(d.lines.at(-1)).toBe("read → worker-back, gate-waiting | read-cluster(10000)");
    expect(d.eventsOf("worker-back")[0]?.restartMs).toBe(142_000);
  });
});

describe("decide: gate.workerReturnMs unset, derived from the learned restart time", () => {
  const derived = { settings: { workerReturnMs: null } };

  it("with restarts of 20 s (declared, not measured yet): at least 5 minutes, not 10 × 20 s", () => {
    const d = readEvery(started(derived), 11_000, 301_000, stuck);
    expect(d.approvalsAsked()).toEqual([]);
    d.read(311_000, stuck());
    expect(d.pending()?.facts).toMatchObject({ kind: "worker-not-back", waitedMs: 310_000 });
  });

  it("after a restart measured at 40 s: 10 × 40 s = 6m40s for the next worker", () => {
    const after1 = () => cluster("worker-1");
    const stuck2 = () => down(after1(), "worker-2");
    const d = startDriver(derived)
      .read(0, cluster())
      .accepted(1_000)
      .read(10_000, down(cluster(), "worker-1"))
      .read(40_000, backHeld(cluster(), "worker-1"))
      .read(60_000, after1())
      .read(70_000, after1());
    expect(d.eventsOf("step-settled").map((e) => e.measurements.restartMs)).toEqual([40_000]);
    d.read(80_000, after1()).accepted(81_000);
    readEvery(d, 91_000, 481_000, stuck2);
    expect(d.approvalsAsked()).toEqual([]);
    d.read(491_000, stuck2());
    expect(d.pending()?.facts).toMatchObject({
      kind: "worker-not-back",
      worker: "worker-2",
      waitedMs: 410_000,
    });
  });
});

describe("decide: the run's time limit (run --timeout) passes", () => {
  const limit = (d: ReturnType<typeof startDriver>, now: number) =>
    d.feed({ kind: "time-limit-reached", now, limitMs: 60_000 }, "time-up");

  it("while a worker is not back: finished aborted at once, saying which and what was never restarted", () => {
    const d = limit(readEvery(started(), 11_000, 51_000, stuck), 60_000);
    expect(d.lines.at(-1)).toBe("time-up → rollout-finished | finish(aborted)");
    const reason = finishReason(d.state);
    expect(reason).toEqual({
      kind: "timed-out",
      limitMs: 60_000,
      inFlight: { worker: "worker-1", stage: "not-back" },
      notRestarted: ["worker-2", "worker-3"],
    });
    expect(reason && finishReasonText(reason)).toBe(
      "timed out after 1m00s: worker-1 was restarted and is not back; not restarted: worker-2, worker-3",
    );
  });

  it("instead of a restart (restarting): the restart was not sent, so the step counts as not restarted", () => {
    const d = limit(startDriver().read(0, cluster()), 60_000);
    expect(d.state.steps[0]).toMatchObject({ status: "pending", attempts: 0, restartIssuedAt: null });
    expect(finishReason(d.state)).toMatchObject({
      inFlight: null,
      notRestarted: ["worker-1", "worker-2", "worker-3"],
    });
  });

  it("at a prompt: finished aborted, the prompt left unanswered", () => {
    const d = limit(asked(), 140_000);
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
    expect(d.state.approvals).toEqual([]);
    expect(finishReason(d.state)).toMatchObject({ inFlight: { worker: "worker-1", stage: "not-back" } });
  });

  it("while settling: the worker is back, its gate had not passed", () => {
    const d = limit(started().read(20_000, backHeld(cluster(), "worker-1")), 30_000);
    expect(finishReason(d.state)).toMatchObject({ inFlight: { worker: "worker-1", stage: "settling" } });
  });
});
