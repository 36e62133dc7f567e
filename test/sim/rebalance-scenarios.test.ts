import { describe, expect, it } from "vitest";
import { followers, tasksByWorker } from "./support/control-client.js";
import { useSims } from "./support/sim-fixture.js";

const sim = useSims({
  workers: 3,
  connectors: 3,
  tasksPerConnector: 4,
  delayMs: 300_000,
  restartMs: 20_000,
  seed: 7,
});

describe("follower bounce (docs/connect-behaviour.md#held-tasks)", () => {
  it("holds the tasks until the deadline, then gives them back to the same worker", async () => {
    const { c } = await sim();
    const before = await c.state();
    const follower = followers(before)[0] ?? "";
    const ownTasks = tasksByWorker(before)[follower] ?? [];
    expect(ownTasks).toHaveLength(4);

    expect((await c.post(`/sim/workers/${follower}/restart?version=3.7.1`)).status).toBe(200);
    await c.advance(30_000);
    const during = await c.state();
    expect(during.workers.find((w) => w.name === follower)?.state).toBe("running");
    expect(during.heldTasks).toEqual(ownTasks);
    expect(during.delayDeadline).toBe(before.now + 300_000 + 300);
    expect(tasksByWorker(during)[follower]).toEqual([]);

    await c.advanceTo((during.delayDeadline ?? 0) - 1);
    expect((await c.state()).heldTasks).toEqual(ownTasks);
    await c.advance(2_000);
    const after = await c.state();
    expect(after.heldTasks).toEqual([]);
    expect(after.delayDeadline).toBeNull();
    expect(tasksByWorker(after)[follower]).toEqual(ownTasks);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(after.counters.taskMoves).toBe(0);
    expect(after.counters.taskInterruptions).toBe(0);
    expect(after.counters.restarts[follower]).toBe(1);
    expect(after.leader).toBe(before.leader);
    // Each of the 4 tasks was down from the stop until the deadline rebalance + start.
    expect(after.counters.taskDowntimeMs).toBe(4 * (300_000 + 300 + 300 + 500));
  });

  it("a bounce longer than the delay sends the tasks to survivors, then revokes and gives some back", async () => {
    const { c } = await sim();
    const before = await c.state();
    const follower = followers(before)[0] ?? "";
    await c.post(`/sim/workers/${follower}/restart?downMs=400000`);
    await c.advance(310_000);
    const expired = await c.state();
    expect(expired.heldTasks).toEqual([]);
    expect(expired.workers.find((w) => w.name === follower)?.state).toBe("stopped");
    expect(expired.counters.taskMoves).toBe(4);
    expect(expired.counters.taskInterruptions).toBe(0);

    await c.advance(150_000);
    const after = await c.state();
    expect(after.workers.map((w) => w.tasks.length)).toEqual([4, 4, 4]);
    expect(after.counters.taskInterruptions).toBe(4);
    expect(after.counters.taskMoves).toBe(8);
    expect(after.counters.rebalances - expired.counters.rebalances).toBe(2);
  });

  it("two bounces in one window share one deadline", async () => {
    const { c } = await sim({ workers: 4, connectors: 4 });
    const before = await c.state();
    const [f1, f2] = followers(before);
    await c.post(`/sim/workers/${f1}/restart`);
    await c.advance(60_000);
    const first = await c.state();
    await c.post(`/sim/workers/${f2}/restart`);
    await c.advance(30_000);
    const second = await c.state();
    expect(second.delayDeadline).toBe(first.delayDeadline);
    expect(second.heldTasks).toHaveLength(8);
    await c.advanceTo((first.delayDeadline ?? 0) + 2_000);
    const after = await c.state();
    expect(after.heldTasks).toEqual([]);
    expect(after.workers.map((w) => w.tasks.length)).toEqual([4, 4, 4, 4]);
    expect(after.counters.taskInterruptions).toBe(0);
  });
});

describe("leader bounce (docs/connect-behaviour.md#the-leader)", () => {
  it("reassigns at once, then revokes and follows up when the old leader returns", async () => {
    const { c } = await sim();
    const before = await c.state();
    const leader = before.leader ?? "";
    await c.post(`/sim/workers/${leader}/restart`);
    await c.advance(1_000);
    const moved = await c.state();
    expect(moved.leader).not.toBe(leader);
    expect(moved.leader).not.toBeNull();
    expect(moved.heldTasks).toEqual([]);
    expect(moved.delayDeadline).toBeNull();
    expect(moved.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(moved.counters.taskMoves).toBe(4);

    const rebalancesBefore = moved.counters.rebalances;
    await c.advance(30_000);
    const after = await c.state();
    expect(after.workers.map((w) => w.tasks.length)).toEqual([4, 4, 4]);
    expect(after.leader).toBe(moved.leader);
    // join (revocation) + follow-up
    expect(after.counters.rebalances - rebalancesBefore).toBe(2);
    expect(after.counters.taskInterruptions).toBe(4);
  });
});
