import { describe, expect, it } from "vitest";
import { ErrorCode, isAppError } from "../../../src/core/errors.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import { recordWithState, rolloutStateOf } from "../../../src/jobs/store/rollout-record.js";
import { resumeDriver, startDriver } from "../../core/rollout/rollout-driver.js";
import { backHeld, cluster, down, SETTINGS, TO } from "../../core/rollout/rollout-fixtures.js";
import { rollFollower } from "../../core/rollout/rollout-scripts.js";
import { aJob } from "./job-fixtures.js";

/** A pace-window rollout (see test/core/rollout/window-pace.test.ts) with worker-1 restarted inside its window. */
function insideWindow(): RolloutState {
  const d = startDriver({ settings: { planPolicy: { ...SETTINGS.planPolicy, pace: "window" } } });
  d.read(0, cluster()).accepted(0).probed(5_000, down(cluster(), "worker-1"), "worker-1");
  return d.state;
}

/** `state` as the store holds it (JSON), with `change` applied. */
function stored(
  state: RolloutState,
  change: (json: Record<string, unknown>) => Record<string, unknown> = (j) => j,
) {
  return change(JSON.parse(JSON.stringify(state)) as Record<string, unknown>);
}

/** The AppError `rolloutStateOf` throws for this checkpoint, or a failure when it reads. */
function corruption(state: Record<string, unknown>): Error {
  try {
    rolloutStateOf(aJob({ state }));
  } catch (e) {
    if (isAppError(e, ErrorCode.StoreCorrupt)) return e;
    throw e;
  }
  return expect.fail("the checkpoint was read");
}

describe("rolloutStateOf: checkpoints read back", () => {
  it("a new rollout writes version 2; a version-1 checkpoint (before the canary) still reads; an unknown version is refused", () => {
    const state = insideWindow();
    expect(state.v).toBe(2);
    expect(rolloutStateOf(aJob({ state: stored(state, (j) => ({ ...j, v: 1 })) })).v).toBe(1);
    expect(corruption(stored(state, (j) => ({ ...j, v: 3 }))).message).toContain("→ at v");
  });

  it("a checkpoint inside a pace window reads back as it was written and resumes alike", () => {
    const state = insideWindow();
    expect(state.openWindow?.key).toEqual({ kind: "pace", window: 0 });
    const read = rolloutStateOf(aJob({ state: stored(state) }));
    expect(read).toEqual(state);
    expect(read.settings.gatePolicy.failAfterMs).toBe(1_800_000);

    const back = () => backHeld(cluster(), "worker-1").withWorker("worker-1", (w) => w.version(TO));
    const resume = (from: RolloutState) =>
      resumeDriver(from).probed(21_000, back(), "worker-1").read(21_000, back()).read(21_000, back());
    const fromRead = resume(read);
    const fromWritten = resume(state);
    expect(fromRead.lines).toEqual(fromWritten.lines);
    expect(fromRead.restarts.map((r) => r.worker)).toEqual(["worker-2"]);
  });

  const windowAs = (window: Record<string, unknown>) => (json: Record<string, unknown>) => {
    const { key: _key, ...rest } = json.openWindow as Record<string, unknown>;
    return { ...json, openWindow: { ...rest, ...window } };
  };
  it.each([
    ["a window key written as text (pace)", windowAs({ index: "pace:0" }), "openWindow.key"],
    ["a window key written as text (eager)", windowAs({ index: "eager:2" }), "openWindow.key"],
    ["a window without a readable key", windowAs({ index: "window-0" }), "openWindow.key"],
    [
      "a track without the group's protocol at the last poll",
      (json: Record<string, unknown>) => {
        const { eager: _eager, ...track } = json.track as Record<string, unknown>;
        return { ...json, track };
      },
      "track.eager",
    ],
  ])("%s is a corrupt checkpoint, named by its path", (_what, change, path) => {
    expect(corruption(stored(insideWindow(), change)).message).toContain(path);
  });
});

/** worker-1 rolled, worker-2 found on the target (skipped), then an abort as worker-3's restart was about to go. */
function skippedThenAborted(): RolloutState {
  const d = startDriver();
  const t1 = rollFollower(d, "worker-1", 0);
  d.read(t1, cluster("worker-1", "worker-2")).control(t1 + 500, "abort", "dave");
  return d.state;
}

describe("rolloutStateOf: reasons and notes", () => {
  it("a checkpoint with facts reads back as the same facts", () => {
    const state = skippedThenAborted();
    expect(state.phase).toMatchObject({
      kind: "finished",
      reason: { kind: "aborted-before-step", by: "dave", step: 3 },
    });
    expect(state.steps[1]?.note).toEqual({ kind: "on-target", version: TO });
    const read = rolloutStateOf(aJob({ state: JSON.parse(JSON.stringify(state)) }));
    expect(read.phase).toEqual(state.phase);
    expect(read.steps).toEqual(state.steps);
  });

  const finishedWith = (reason: unknown) => (json: Record<string, unknown>) => ({
    ...json,
    phase: { ...(json.phase as Record<string, unknown>), reason },
  });
  const noteOfStep2 = (note: unknown) => (json: Record<string, unknown>) => ({
    ...json,
    steps: (json.steps as Record<string, unknown>[]).map((s) => (s.step === 2 ? { ...s, note } : s)),
  });
  it.each([
    ["a finish reason written as a sentence", finishedWith("aborted by dave before step 3"), "phase.reason"],
    ["a step's note written as a sentence", noteOfStep2(`already runs ${TO}`), "steps[1].note"],
    ["a finish reason that is neither", finishedWith(42), "phase.reason"],
  ])("%s is a corrupt checkpoint, named by its path", (_what, change, path) => {
    expect(corruption(stored(skippedThenAborted(), change)).message).toContain(path);
  });
});

describe("recordWithState: the pending approval in the job record", () => {
  it("names the approval by its id and kind (the checkpoint holds its facts, the views word them)", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.read(
      t1,
      cluster("worker-1").withConnector("orders", (c) => c.taskCount(8)),
    );
    const asking = d.state;
    if (asking.phase.kind !== "awaiting-approval") throw new Error("not asking");
    expect(recordWithState(aJob(), asking).pendingApproval).toEqual({
      id: asking.phase.approval.id,
      kind: "config-changed",
    });
  });
});
