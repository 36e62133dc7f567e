import { describe, expect, it } from "vitest";
import { captureBaseline } from "../../../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../../../src/core/settle/evaluate-settle.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import { useSimOverHttp } from "../../support/sim-over-http.js";

const setUp = useSimOverHttp();

describe("settle gate against the simulator over HTTP", () => {
  it("reports a graceful follower bounce as held by the scheduled delay, with the right remaining time, and passes after the deadline", async () => {
    const { sim: s, read } = await setUp({ workers: 4, version: "3.7.1", delayMs: 60_000, restartMs: 5_000 });
    const leader = s.cluster.state().leader;
    const follower = s.cluster.state().workers.find((w) => w.name !== leader)?.name ?? "";
    const before = await read();
    const stopAt = s.clock.now();
    const captured = captureBaseline(before, {
      step: 1,
      worker: follower,
      targetVersion: "3.7.1",
      stopIssuedAt: stopAt,
      delayMs: 60_000,
    });
    if (captured.kind !== "captured") throw new Error(captured.message);
    expect(s.cluster.restartWorker(follower, { version: "3.7.1", downMs: 1_000 }).kind).toBe("ok");
    await s.clock.sleep(20_000);
    await s.settle();
    const during = await read();
    const held = evaluateSettle({
      baseline: captured.baseline,
      polls: [during],
      policy: {},
      now: s.clock.now(),
    });
    expect(held.kind).toBe("waiting");
    const reason =
      held.kind === "waiting" ? held.reasons.find((r) => r.code === "held-by-scheduled-delay") : undefined;
    expect(reason?.message).toMatch(/held by the scheduled delay: 40s left/);
    await s.clock.sleep(45_000);
    await s.settle();
    const polls: ClusterSnapshot[] = [];
    for (let i = 0; i < 3; i++) {
      polls.push(await read());
      await s.clock.sleep(5_000);
      await s.settle();
    }
    expect(evaluateSettle({ baseline: captured.baseline, polls, policy: {}, now: s.clock.now() })).toEqual({
      kind: "settled",
    });
    expect(s.cluster.state().counters.taskMoves).toBe(0);
  });

  it("does not pass after a crash while the dead worker's tasks only look RUNNING", async () => {
    const { sim: s, read } = await setUp({
      workers: 4,
      version: "3.7.1",
      delayMs: 60_000,
      restartMs: 2_000,
      sessionTimeoutMs: 10_000,
    });
    const leader = s.cluster.state().leader;
    const victim = s.cluster.state().workers.find((w) => w.name !== leader)?.name ?? "";
    const before = await read();
    const captured = captureBaseline(before, {
      step: 1,
      worker: victim,
      targetVersion: "3.7.1",
      stopIssuedAt: s.clock.now(),
      stopMode: "crash",
      delayMs: 60_000,
    });
    if (captured.kind !== "captured") throw new Error(captured.message);
    expect(s.cluster.stopWorker(victim, "crash").kind).toBe("ok");
    expect(s.cluster.startWorker(victim, "3.7.1").kind).toBe("ok");
    await s.clock.sleep(8_000);
    await s.settle();
    const polls = [await read()];
    const stale = polls[0]?.connectors
      ?.flatMap((c) => c.tasks)
      .filter((t) => t.workerId === captured.baseline.worker.workerId && t.state === "RUNNING");
    expect(stale?.length).toBeGreaterThan(0);
    await s.clock.sleep(2_000);
    await s.settle();
    polls.push(await read());
    const verdict = evaluateSettle({
      baseline: captured.baseline,
      polls,
      policy: { consecutivePolls: 2 },
      now: s.clock.now(),
    });
    expect(verdict.kind).toBe("waiting");
    const codes = verdict.kind === "waiting" ? verdict.reasons.map((r) => r.code) : [];
    expect(codes).toContain("stale-running");
  });
});
