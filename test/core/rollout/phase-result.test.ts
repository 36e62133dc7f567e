import { describe, expect, it } from "vitest";
import { ErrorCode, isAppError } from "../../../src/core/errors.js";
import { done, followReentries, reenter, toNextStep } from "../../../src/core/rollout/phase-result.js";
import type { RolloutEffect } from "../../../src/core/rollout/rollout-io.js";
import { startDriver } from "./rollout-driver.js";

const state = () => startDriver().state;
const emitted = (step: number): RolloutEffect => ({
  kind: "emit",
  event: { kind: "step-started", step, worker: `worker-${step}` },
});

describe("followReentries: how decide loops over phases", () => {
  it("a done phase is the transition as it is", () => {
    const t = { state: state(), effects: [{ kind: "read-cluster", afterMs: 0 }] as const };
    expect(
      followReentries(
        done(t),
        () => done(t),
        () => 10,
      ),
    ).toBe(t);
  });

  it("each re-entry's effects come first, in order, then the done phase's", () => {
    const s = state();
    const seen: string[] = [];
    const t = followReentries(
      reenter({ kind: "before-step" }, s, [emitted(1)]),
      (at, x) => {
        seen.push(at.kind);
        return at.kind === "before-step"
          ? reenter({ kind: "settling" }, x, [emitted(2)])
          : done({ state: x, effects: [{ kind: "read-cluster", afterMs: 5 }] });
      },
      () => 10,
    );
    expect(seen).toEqual(["before-step", "settling"]);
    expect(t.effects).toEqual([emitted(1), emitted(2), { kind: "read-cluster", afterMs: 5 }]);
  });

  it("phases that keep re-entering are a bug: thrown once over the bound, not spun", () => {
    const s = state();
    let calls = 0;
    let thrown: unknown;
    try {
      followReentries(
        reenter({ kind: "before-step" }, s),
        (at, x) => {
          calls++;
          return reenter(at, x);
        },
        () => 7,
      );
    } catch (e) {
      thrown = e;
    }
    expect(isAppError(thrown, ErrorCode.Internal)).toBe(true);
    expect(calls).toBe(7);
  });

  it("a step done goes to the next step's checks at the next read, or now when a pause or abort waits", () => {
    const s = state();
    expect(toNextStep(s, 1, [])).toEqual(
      done({
        state: { ...s, phase: { kind: "before-step", step: 2 } },
        effects: [{ kind: "read-cluster", afterMs: 0 }],
      }),
    );
    const paused = { ...s, pendingControl: { action: "pause" as const, by: "alice", at: 0 } };
    expect(toNextStep(paused, 1, [emitted(1)])).toEqual(
      reenter({ kind: "before-step" }, { ...paused, phase: { kind: "before-step", step: 2 } }, [emitted(1)]),
    );
  });
});
