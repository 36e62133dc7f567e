import { describe, expect, it } from "vitest";
import { runRound } from "./chaos-round.js";

/**
 * The double fault a Redis without persistence cannot keep: seed 73005 kills the lock holder after a restart, and
 * 0.8 s later, within the dead holder's 2 s lease, Redis restarts empty. The rollout's record and lease are gone with
 * the only replica that ran it; another replica remembers the record from its last sweep, writes it back once it
 * stayed missing for two leases with no runner marking it lost, and takes it over: the rollout finishes and its thread
 * says so. Three real `serve` replicas, a real redis-server, the simulator over HTTP.
 */
const SEED = 73_005;

describe("a rollout whose holder died as Redis lost everything", () => {
  it("is written back by another replica, resumed and finished: every invariant holds", async () => {
    const round = await runRound({ seed: SEED, replicas: 3 });
    const applied = round.faults.filter((f) => f.skipped === undefined).map((f) => f.kind);
    const why = [
      ...round.verdicts.filter((v) => !v.held).map((v) => JSON.stringify(v)),
      ...round.diagnostics,
    ];
    expect(applied, why.join("\n")).toEqual(["kill-lock-holder", "redis-restart-empty"]);
    expect(round.held, why.join("\n")).toBe(true);
  }, 240_000);
});
