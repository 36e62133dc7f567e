import { describe, expect, it } from "vitest";
import { renderFinalReport } from "../../../src/chat/views/render-final-report.js";
import { renderParent } from "../../../src/chat/views/render-parent.js";
import { renderStepReply } from "../../../src/chat/views/render-step-reply.js";
import { renderEventLine } from "../../../src/cli/render-event-line.js";
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

/** The same checkpoint as an older version of the bot wrote it: the window key as a string, policies unresolved. */
function asOlderCheckpoint(state: RolloutState): Record<string, unknown> {
  const json = JSON.parse(JSON.stringify(state)) as Record<string, unknown> & RolloutState;
  const { key: _key, ...window } = json.openWindow ?? ({} as never);
  return {
    ...json,
    settings: { ...SETTINGS, planPolicy: { ...SETTINGS.planPolicy, pace: "window" } },
    openWindow: { ...window, index: "pace:0" },
  };
}

describe("rolloutStateOf: checkpoints read back", () => {
  it("an older checkpoint (window key `pace:0`, unresolved settings) reads as the new one and resumes alike", () => {
    const state = insideWindow();
    expect(state.openWindow?.key).toEqual({ kind: "pace", window: 0 });
    const older = rolloutStateOf(aJob({ state: asOlderCheckpoint(state) }));
    expect(older.openWindow?.key).toEqual({ kind: "pace", window: 0 });
    expect(older.openWindow).not.toHaveProperty("index");
    expect(older.settings).toEqual(state.settings);
    expect(older.settings.gatePolicy.failAfterMs).toBe(1_800_000);

    const back = () => backHeld(cluster(), "worker-1").withWorker("worker-1", (w) => w.version(TO));
    const resume = (from: RolloutState) =>
      resumeDriver(from).probed(21_000, back(), "worker-1").read(21_000, back()).read(21_000, back());
    const fromOlder = resume(older);
    const fromNew = resume(state);
    expect(fromOlder.lines).toEqual(fromNew.lines);
    expect(fromOlder.restarts.map((r) => r.worker)).toEqual(["worker-2"]);
  });

  it("an eager key in the old form is read too", () => {
    const state = insideWindow();
    const older = asOlderCheckpoint(state) as { openWindow: Record<string, unknown> };
    const read = rolloutStateOf(
      aJob({ state: { ...older, openWindow: { ...older.openWindow, index: "eager:2" } } }),
    );
    expect(read.openWindow?.key).toEqual({ kind: "eager", fromStep: 2 });
  });

  it("a window without a readable key is a corrupt checkpoint", () => {
    const older = asOlderCheckpoint(insideWindow()) as { openWindow: Record<string, unknown> };
    const bad = { ...older, openWindow: { ...older.openWindow, index: "window-0" } };
    let thrown: unknown;
    try {
      rolloutStateOf(aJob({ state: bad }));
    } catch (e) {
      thrown = e;
    }
    expect(isAppError(thrown, ErrorCode.StoreCorrupt)).toBe(true);
    expect(String((thrown as Error).message)).toContain("openWindow");
  });
});

/** worker-1 rolled, worker-2 found on the target (skipped), then an abort as worker-3's restart was about to go. */
function skippedThenAborted(): RolloutState {
  const d = startDriver();
  const t1 = rollFollower(d, "worker-1", 0);
  d.read(t1, cluster("worker-1", "worker-2")).control(t1 + 500, "abort", "dave");
  return d.state;
}

/** The same checkpoint as a bot that worded reasons in core wrote it: sentences where the facts are now. */
function withSentences(
  state: RolloutState,
  reason: string,
  notes: Record<number, string>,
): Record<string, unknown> {
  const json = JSON.parse(JSON.stringify(state)) as Record<string, unknown> & RolloutState;
  return {
    ...json,
    phase: { ...json.phase, reason },
    steps: json.steps.map((s) => ({ ...s, note: notes[s.step] ?? s.note })),
  };
}

describe("rolloutStateOf: reasons and notes", () => {
  const now = 200_000;

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

  it("an older checkpoint's sentences read as text and show as they were worded, in Slack and the terminal", () => {
    const state = skippedThenAborted();
    const older = rolloutStateOf(
      aJob({
        state: withSentences(state, "aborted by dave before step 3", { 2: `already runs ${TO}` }),
      }),
    );
    expect(older.phase).toMatchObject({
      kind: "finished",
      reason: { kind: "text", text: "aborted by dave before step 3" },
    });
    expect(older.steps[1]?.note).toEqual({ kind: "text", text: `already runs ${TO}` });
    expect(older.steps[0]?.note).toBeNull();
    // What people see is the same whether the checkpoint holds the facts or the sentences core worded then.
    expect(renderFinalReport(older, now)).toEqual(renderFinalReport(state, now));
    expect(renderParent(older, now)).toEqual(renderParent(state, now));
    const skipped = (s: RolloutState) => s.steps[1] ?? expect.fail("no step 2");
    expect(renderStepReply(older, skipped(older), now)).toEqual(renderStepReply(state, skipped(state), now));
    const finishedLine = (s: RolloutState) =>
      s.phase.kind === "finished"
        ? renderEventLine(
            { kind: "rollout-finished", result: s.phase.result, reason: s.phase.reason },
            new Map(),
          )
        : null;
    expect(finishedLine(older)).toBe("aborted: aborted by dave before step 3");
    expect(finishedLine(state)).toBe(finishedLine(older));
  });

  it("a reason that is neither a sentence nor facts is a corrupt checkpoint", () => {
    const bad = withSentences(skippedThenAborted(), "x", {}) as { phase: Record<string, unknown> };
    let thrown: unknown;
    try {
      rolloutStateOf(aJob({ state: { ...bad, phase: { ...bad.phase, reason: 42 } } }));
    } catch (e) {
      thrown = e;
    }
    expect(isAppError(thrown, ErrorCode.StoreCorrupt)).toBe(true);
    expect(String((thrown as Error).message)).toContain("phase.reason");
  });
});

describe("recordWithState: the pending approval in the job record", () => {
  it("names the approval by its kind (the views word its facts); an older approval keeps its sentence", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.read(
      t1,
      cluster("worker-1").withConnector("orders", (c) => c.taskCount(8)),
    );
    const asking = d.state;
    if (asking.phase.kind !== "awaiting-approval") throw new Error("not asking");
    const id = asking.phase.approval.id;
    expect(recordWithState(aJob(), asking).pendingApproval).toEqual({
      id,
      kind: "config-changed",
      prompt: "config-changed",
    });
    const { facts: _facts, ...asked } = asking.phase.approval;
    const older: RolloutState = {
      ...asking,
      phase: {
        ...asking.phase,
        approval: { ...asked, prompt: "Connector configs changed. Go on?", details: [] },
      },
    };
    expect(recordWithState(aJob(), older).pendingApproval).toEqual({
      id,
      kind: "config-changed",
      prompt: "Connector configs changed. Go on?",
    });
  });
});
