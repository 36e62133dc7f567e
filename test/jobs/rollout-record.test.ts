import { describe, expect, it } from "vitest";
import { ErrorCode, isAppError } from "../../src/core/errors.js";
import type { RolloutState } from "../../src/core/rollout/rollout-types.js";
import { recordWithState, rolloutStateOf } from "../../src/jobs/rollout-record.js";
import { resumeDriver, startDriver } from "../core/rollout/rollout-driver.js";
import { backHeld, cluster, down, SETTINGS, TO } from "../core/rollout/rollout-fixtures.js";
import { rollFollower } from "../core/rollout/rollout-scripts.js";
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
