import { describe, expect, it } from "vitest";
import {
  createLostAssignmentState,
  handleLostAssignments,
  type LostAssignmentState,
} from "../../../src/sim/assignor/lost-assignments.js";
import type { AssignorBehaviour } from "../../../src/sim/assignor/types.js";
import {
  emptyWorkSet,
  type WorkerLoad,
  type WorkSet,
  workSetOf,
} from "../../../src/sim/assignor/worker-load.js";
import { REBALANCE_DELAY, trunkBehaviour } from "./harness.js";

/** Kafka's `workerLoad(worker, connectorStart, connectorNum, taskStart, taskNum)` test helper. */
function workerLoad(worker: string, cStart: number, cNum: number, tStart: number, tNum: number): WorkerLoad {
  return {
    worker,
    connectors: Array.from({ length: cNum }, (_, i) => `connector${cStart + i}`),
    tasks: Array.from({ length: tNum }, (_, i) => `task/${tStart + i}`),
  };
}

const empty = (worker: string): WorkerLoad => ({ worker, connectors: [], tasks: [] });

interface Fixture {
  state: LostAssignmentState;
  now: number;
  loads: Map<string, WorkerLoad>;
  lost: WorkSet;
  behaviour: AssignorBehaviour;
}

/** Three workers loaded (2C, 4T) each; worker1 is lost. Mirrors the first half of the Kafka tests. */
function lostWorker1(behaviour = trunkBehaviour()): Fixture {
  const state = createLostAssignmentState();
  const loads = new Map([
    ["worker0", workerLoad("worker0", 0, 2, 0, 4)],
    ["worker1", workerLoad("worker1", 2, 2, 4, 4)],
    ["worker2", workerLoad("worker2", 4, 2, 8, 4)],
  ]);
  const f: Fixture = { state, now: 5_000_000, loads, lost: emptyWorkSet(), behaviour };
  // No lost assignments
  expect(run(f).connectors.size).toBe(0);
  expect(state.candidates.size).toBe(0);
  expect(state.scheduledRebalance).toBe(0);
  expect(state.delay).toBe(0);
  state.previousMembers = new Set(loads.keys());
  const lostLoad = loads.get("worker1");
  if (!lostLoad) throw new Error("fixture");
  loads.delete("worker1");
  f.lost = workSetOf(lostLoad.connectors, lostLoad.tasks);
  return f;
}

function run(f: Fixture): WorkSet {
  return handleLostAssignments(f.state, {
    now: f.now,
    lost: f.lost,
    workers: [...f.loads.values()],
    behaviour: f.behaviour,
  });
}

describe("handleLostAssignments (ports of IncrementalCooperativeAssignorTest unit cases)", () => {
  it("testLostAssignmentHandlingWhenWorkerBounces", () => {
    const f = lostWorker1();
    run(f);
    expect([...f.state.candidates]).toEqual([]);
    expect(f.state.scheduledRebalance).toBe(f.now + REBALANCE_DELAY);
    expect(f.state.delay).toBe(REBALANCE_DELAY);

    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    f.loads.set("worker1", empty("worker1"));
    run(f);
    expect([...f.state.candidates]).toEqual(["worker1"]);
    expect(f.state.scheduledRebalance).toBe(f.now + REBALANCE_DELAY / 2);
    expect(f.state.delay).toBe(REBALANCE_DELAY / 2);

    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    const toReassign = run(f);
    expect(toReassign.tasks.size).toBe(0);
    expect(f.loads.get("worker1")?.connectors).toEqual([...f.lost.connectors]);
    expect(f.loads.get("worker1")?.tasks).toEqual([...f.lost.tasks]);
    expect([...f.state.candidates]).toEqual([]);
    expect(f.state.scheduledRebalance).toBe(0);
    expect(f.state.delay).toBe(0);
  });

  it("testLostAssignmentHandlingWithMoreThanOneCandidates", () => {
    const f = lostWorker1();
    f.loads.set("worker3", empty("worker3"));
    run(f);
    expect([...f.state.candidates]).toEqual(["worker3"]);
    expect(f.state.delay).toBe(REBALANCE_DELAY);

    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    f.loads.set("worker1", empty("worker1"));
    run(f);
    expect(new Set(f.state.candidates)).toEqual(new Set(["worker1", "worker3"]));
    expect(f.state.delay).toBe(REBALANCE_DELAY / 2);

    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    // The candidates have picked up other work meanwhile; they are still candidates.
    f.loads.set("worker1", workerLoad("worker1", 6, 2, 8, 4));
    f.loads.set("worker3", workerLoad("worker3", 8, 2, 12, 4));
    run(f);
    const both = [f.loads.get("worker1"), f.loads.get("worker3")];
    const connectors = both.flatMap((l) => l?.connectors ?? []);
    const tasks = both.flatMap((l) => l?.tasks ?? []);
    for (const c of f.lost.connectors) expect(connectors).toContain(c);
    for (const t of f.lost.tasks) expect(tasks).toContain(t);
    // Round-robin: each candidate got half of the lost work.
    expect(f.loads.get("worker1")?.tasks.length).toBe(4 + 2);
    expect(f.loads.get("worker3")?.tasks.length).toBe(4 + 2);
    expect([...f.state.candidates]).toEqual([]);
    expect(f.state.scheduledRebalance).toBe(0);
    expect(f.state.delay).toBe(0);
  });

  it("testLostAssignmentHandlingWhenWorkerBouncesBackButFinallyLeaves", () => {
    const f = lostWorker1();
    run(f);
    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    f.loads.set("worker1", empty("worker1"));
    run(f);
    expect([...f.state.candidates]).toEqual(["worker1"]);

    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    f.loads.delete("worker1");
    const toReassign = run(f);
    expect([...toReassign.connectors]).toEqual([...f.lost.connectors]);
    expect([...toReassign.tasks]).toEqual([...f.lost.tasks]);
    expect([...f.state.candidates]).toEqual([]);
    expect(f.state.scheduledRebalance).toBe(0);
    expect(f.state.delay).toBe(0);
  });

  it("testLostAssignmentHandlingWhenScheduledDelayIsDisabled", () => {
    const f = lostWorker1(trunkBehaviour(0));
    const toReassign = run(f);
    expect([...f.state.candidates]).toEqual([]);
    expect(f.state.scheduledRebalance).toBe(0);
    expect(f.state.delay).toBe(0);
    expect([...toReassign.connectors]).toEqual([...f.lost.connectors]);
    expect([...toReassign.tasks]).toEqual([...f.lost.tasks]);
  });

  it("pre-KAFKA-15693: maxDelay 0 holds lost work until the next rebalance", () => {
    const f = lostWorker1({ ...trunkBehaviour(0), zeroDelayReassignsImmediately: false });
    expect(run(f).tasks.size).toBe(0);
    expect(f.state.delay).toBe(0);
    expect(f.state.scheduledRebalance).toBe(f.now);
    f.state.previousMembers = new Set(f.loads.keys());
    expect([...run(f).tasks]).toEqual([...f.lost.tasks]);
  });

  it("pre-KAFKA-10413: the first candidate present gets all lost work", () => {
    const f = lostWorker1({ ...trunkBehaviour(), roundRobinLostWork: false });
    f.loads.set("worker3", empty("worker3"));
    run(f);
    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    f.loads.set("worker1", empty("worker1"));
    run(f);
    f.state.previousMembers = new Set(f.loads.keys());
    f.now += REBALANCE_DELAY / 2;
    run(f);
    expect(f.loads.get("worker3")?.tasks).toEqual([...f.lost.tasks]);
    expect(f.loads.get("worker1")?.tasks).toEqual([]);
  });
});
