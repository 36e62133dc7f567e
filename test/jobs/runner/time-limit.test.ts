import { describe, expect, it } from "vitest";
import type { RunContext } from "../../../src/jobs/runner/run-context.js";
import { timeLimitInput, untilTimeLimit } from "../../../src/jobs/runner/time-limit.js";
import { createManualClock } from "../../support/manual-clock.js";

/** What the time-limit helpers read of a run: its clock, its limit and its stop signal. */
function runWith(limit: { at: number; ms: number } | undefined, signal = new AbortController().signal) {
  const clock = createManualClock(1_000);
  const ctx = { deps: { clock, ...(limit ? { timeLimit: limit } : {}) }, signal } as unknown as RunContext;
  return { clock, ctx };
}

/** A prompt nobody answers: it settles only when its signal aborts. */
const unanswered = (signal: AbortSignal) =>
  new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

describe("the run's time limit", () => {
  it("stops the rollout only once it has passed", async () => {
    const { clock, ctx } = runWith({ at: 61_000, ms: 60_000 });
    expect(timeLimitInput(ctx)).toBeNull();
    await clock.advance(60_000);
    expect(timeLimitInput(ctx)).toEqual({ kind: "time-limit-reached", now: 61_000, limitMs: 60_000 });
  });

  it("cuts an unanswered prompt short when it passes", async () => {
    const { clock, ctx } = runWith({ at: 61_000, ms: 60_000 });
    const waited = untilTimeLimit(ctx, unanswered);
    await clock.advance(60_000);
    await expect(waited).resolves.toEqual({
      kind: "time-up",
      input: { kind: "time-limit-reached", now: 61_000, limitMs: 60_000 },
    });
  });

  it("an answer before it passes is the answer, and nothing is left sleeping", async () => {
    const { clock, ctx } = runWith({ at: 61_000, ms: 60_000 });
    await expect(untilTimeLimit(ctx, async () => "approve")).resolves.toEqual({
      kind: "done",
      value: "approve",
    });
    expect(clock.pending()).toBe(0);
  });

  it("a stop of the run rejects as before, and no limit is no limit", async () => {
    const stop = new AbortController();
    const { ctx } = runWith({ at: 61_000, ms: 60_000 }, stop.signal);
    const waited = untilTimeLimit(ctx, unanswered);
    stop.abort(new Error("shutting down"));
    await expect(waited).rejects.toThrow("shutting down");
    const unlimited = runWith(undefined);
    expect(timeLimitInput(unlimited.ctx)).toBeNull();
    await expect(untilTimeLimit(unlimited.ctx, async () => 1)).resolves.toEqual({ kind: "done", value: 1 });
  });
});
