/** Rolling-restart cases worked out from Kafka's source, not Kafka tests, replayed on the trunk (≈3.7+) model. */
import { describe, expect, it } from "vitest";
import { Cluster, REBALANCE_DELAY } from "./harness.js";

/** `workers` workers with `workers` connectors of 4 tasks each, balanced: 4 tasks on every worker. */
function balanced(workers: 3 | 4): Cluster {
  const c = new Cluster().addConnector("connector3", 4);
  if (workers === 4) c.addConnector("connector4", 4);
  c.addWorkers(...["worker2", "worker3", "worker4"].slice(0, workers - 1));
  c.rebalance();
  c.rebalance();
  expect(c.taskCounts()).toEqual(Array(workers).fill(4));
  return c;
}

describe("rolling-restart cases worked out from the source", () => {
  it("worker returns after expiry: survivors take its work, then revoke + follow-up rebalance it back", () => {
    const c = balanced(3);

    c.removeWorkers("worker3").rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY);
    c.sleep(REBALANCE_DELAY).rebalance();
    expect(c.delay).toBe(0);
    expect(c.taskCounts()).toEqual([6, 6]);

    c.addWorkers("worker3b").rebalance();
    expect(c.last.byMember.get("worker3b")?.assigned.tasks).toEqual([]);
    expect(c.taskCounts()).toEqual([0, 4, 4]);
    c.rebalance();
    expect(c.taskCounts()).toEqual([4, 4, 4]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("follower w2 bounced (back at 30 s), then the leader bounced at 60 s: the window is abandoned", () => {
    const c = balanced(3);

    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY);
    c.sleep(30_000).addWorkers("worker2b").rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY - 30_000);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(30_000).removeWorkers("worker1").newLeader().rebalance();
    expect(c.delay).toBe(0);
    expect(c.taskCounts()).toEqual([6, 6]);

    c.addWorkers("worker1b").rebalance();
    expect(c.taskCounts()).toEqual([0, 4, 4]);
    c.rebalance();
    expect(c.taskCounts()).toEqual([4, 4, 4]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("two followers bounced inside one window, both back: one shared deadline, nothing moves before it", () => {
    const c = balanced(4);

    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(300_000);
    c.sleep(30_000).addWorkers("worker2b").rebalance();
    expect(c.delay).toBe(270_000);
    c.sleep(30_000).removeWorkers("worker3").rebalance();
    expect(c.delay).toBe(240_000);
    c.sleep(30_000).addWorkers("worker3b").rebalance();
    expect(c.delay).toBe(210_000);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(210_000).rebalance();
    expect(c.delay).toBe(0);
    expect(c.last.byMember.get("worker2b")?.assigned.tasks.length).toBe(4);
    expect(c.last.byMember.get("worker3b")?.assigned.tasks.length).toBe(4);
    expect(c.taskCounts()).toEqual([4, 4, 4, 4]);
    expect(c.revokedCount()).toBe(0);
  });

  it("two followers bounced, only one back by the deadline: it gets all, the excess is trimmed unstarted", () => {
    const c = balanced(4);
    c.removeWorkers("worker2").rebalance();
    c.sleep(30_000).addWorkers("worker2b").rebalance();
    c.sleep(30_000).removeWorkers("worker3").rebalance();
    c.sleep(240_000).rebalance();
    expect(c.delay).toBe(0);
    const w2b = c.last.byMember.get("worker2b");
    // Dealt 8 lost tasks, kept 6 (16 tasks over 3 workers: quota 6, 5, 5); the 2 trimmed were never started.
    expect(w2b?.assigned.tasks.length).toBe(6);
    expect(w2b?.revoked.tasks.length).toBe(2);
    for (const t of w2b?.revoked.tasks ?? []) expect(w2b?.assigned.tasks).not.toContain(t);
    expect(c.taskCounts()).toEqual([4, 4, 6]);

    // The trimmed tasks are still "lost" to the leader and are reassigned as new in the follow-up.
    c.rebalance();
    expect(c.taskCounts()).toEqual([5, 5, 6]);
    expect(c.isCompleteAndUnique()).toBe(true);

    c.addWorkers("worker3b").rebalance();
    expect(c.taskCounts()).toEqual([0, 4, 4, 4]);
    c.sleep(c.delay).rebalance();
    expect(c.taskCounts()).toEqual([4, 4, 4, 4]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });
});
