import type { RolloutInput } from "../../core/rollout/rollout-io.js";
import type { RunContext } from "./run-context.js";

/**
 * The run's time limit (`run --timeout`, `RunnerDeps.timeLimit`), on the run's clock. The runner looks at it between
 * effects, never during a restart the executor is carrying out; a wait that may last (a prompt) is cut short by it.
 */

/** The input that stops the rollout once the limit has passed; null before it, or without a limit. */
export function timeLimitInput(ctx: RunContext): RolloutInput | null {
  const limit = ctx.deps.timeLimit;
  if (!limit) return null;
  const now = ctx.deps.clock.now();
  return now < limit.at ? null : { kind: "time-limit-reached", now, limitMs: limit.ms };
}

/**
 * Runs `wait` with a signal that also aborts when the limit passes: its value, or `time-up` (with the input that stops
 * the rollout) when the limit cut it short. A stop of the run itself (the context's signal) rejects as before.
 */
export async function untilTimeLimit<T>(
  ctx: RunContext,
  wait: (signal: AbortSignal) => Promise<T>,
): Promise<
  { readonly kind: "done"; readonly value: T } | { readonly kind: "time-up"; readonly input: RolloutInput }
> {
  const limit = ctx.deps.timeLimit;
  if (!limit) return { kind: "done", value: await wait(ctx.signal) };
  const timeUp = new AbortController();
  const ended = new AbortController();
  const timer = ctx.deps.clock
    .sleep(Math.max(0, limit.at - ctx.deps.clock.now()), AbortSignal.any([ctx.signal, ended.signal]))
    .then(
      () => timeUp.abort(new Error(`the run's time limit passed`)),
      () => undefined,
    );
  try {
    return { kind: "done", value: await wait(AbortSignal.any([ctx.signal, timeUp.signal])) };
  } catch (e) {
    if (timeUp.signal.aborted && !ctx.signal.aborted)
      return {
        kind: "time-up",
        input: { kind: "time-limit-reached", now: ctx.deps.clock.now(), limitMs: limit.ms },
      };
    throw e;
  } finally {
    ended.abort();
    await timer;
  }
}
