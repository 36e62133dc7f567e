import { describe, expect, it } from "vitest";
import { createEagerAssignor } from "../../../src/sim/assignor/eager-assignor.js";
import { Cluster } from "./harness.js";

describe("EagerAssignor model", () => {
  it("deals connectors then tasks round-robin over members sorted by id, one shared iterator", () => {
    const c = new Cluster(createEagerAssignor).addConnector("connector3", 1).addWorkers("worker3", "worker2");
    c.rebalance();
    const byMember = c.last.byMember;
    expect(c.delay).toBe(0);
    expect(byMember.get("worker1")?.assigned.connectors).toEqual(["connector1"]);
    expect(byMember.get("worker2")?.assigned.connectors).toEqual(["connector2"]);
    expect(byMember.get("worker3")?.assigned.connectors).toEqual(["connector3"]);
    // 9 tasks; the iterator continues from worker1 after the three connectors.
    expect(byMember.get("worker1")?.assigned.tasks).toEqual(["connector1/0", "connector1/3", "connector2/2"]);
    expect(byMember.get("worker2")?.assigned.tasks).toEqual(["connector1/1", "connector2/0", "connector2/3"]);
    expect(byMember.get("worker3")?.assigned.tasks).toEqual(["connector1/2", "connector2/1", "connector3/0"]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("revokes every member's whole assignment each round and reassigns everything, delay 0", () => {
    const c = new Cluster(createEagerAssignor).addWorkers("worker2");
    c.rebalance();
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);
    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(0);
    expect(c.last.byMember.get("worker1")?.revoked.tasks.length).toBe(4);
    expect(c.last.byMember.get("worker2")?.revoked.tasks.length).toBe(4);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [2, 3, 3],
    ]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("a departed member's work is reassigned at once (no scheduled delay)", () => {
    const c = new Cluster(createEagerAssignor).addWorkers("worker2");
    c.rebalance();
    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([[2], [8]]);
  });

  it("orders task numbers numerically, not as text", () => {
    const c = new Cluster(createEagerAssignor).removeConnector("connector2").removeConnector("connector1");
    c.addConnector("big", 11).rebalance();
    expect(c.last.byMember.get("worker1")?.assigned.tasks.slice(0, 3)).toEqual(["big/0", "big/1", "big/2"]);
    expect(c.last.byMember.get("worker1")?.assigned.tasks.at(-1)).toBe("big/10");
  });
});
