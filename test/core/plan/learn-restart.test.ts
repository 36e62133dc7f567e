import { describe, expect, it } from "vitest";
import {
  LEARNED_FLOOR_SHARE,
  learnedRestartMs,
  withLearnedRestart,
  worthReplanning,
} from "../../../src/core/plan/learn-restart.js";
import { resolvePlanPolicy } from "../../../src/core/plan/resolve-plan-policy.js";

describe("learning the restart time", () => {
  it.each([
    { measured: [], declared: 15_000, learned: null },
    { measured: [8_000], declared: 15_000, learned: 8_000 },
    // of two, the slower counts
    { measured: [8_000, 9_500], declared: 15_000, learned: 9_500 },
    // one outlier among three is ignored, either way
    { measured: [8_000, 60_000, 9_000], declared: 15_000, learned: 9_000 },
    { measured: [8_000, 100, 9_000], declared: 15_000, learned: 8_000 },
    // slower than declared: learned upwards too
    { measured: [25_000], declared: 15_000, learned: 25_000 },
    // never below a quarter of the declared value; nonsense ignored
    { measured: [500], declared: 40_000, learned: 40_000 * LEARNED_FLOOR_SHARE },
    { measured: [Number.NaN, -3, 0], declared: 15_000, learned: null },
  ])("$measured declared $declared → $learned", ({ measured, declared, learned }) => {
    expect(learnedRestartMs(measured, declared)).toBe(learned);
  });

  it("re-plans only on a change of a second and 10 % or more", () => {
    expect(worthReplanning(15_000, 8_000)).toBe(true);
    expect(worthReplanning(15_000, 14_000)).toBe(false);
    expect(worthReplanning(8_000, 9_000)).toBe(true);
    expect(worthReplanning(8_000, 8_900)).toBe(false);
  });

  it("says how many followers a window holds with the declared and the learned time", () => {
    // delay 30 s, margin 10 % + 5 s, probe 1 s: declared 15 s → 1 + ⌊(30 − 15 − 6.5)/16⌋ = 1; 8 s → 1 + ⌊16.2/9⌋ = 2
    const policy = resolvePlanPolicy({
      connectProtocol: null,
      scheduledRebalanceMaxDelayMs: 30_000,
      expectedRestartMs: 15_000,
      restartJitter: 0.1,
      pace: "window",
    });
    const change = withLearnedRestart(policy, 8_000, 30_000);
    expect(change.policy.expectedRestartMs).toBe(8_000);
    expect([change.followersBefore, change.followersAfter]).toEqual([1, 2]);
  });
});
