import { describe, expect, it } from "vitest";
import {
  leaderRotation,
  leaderRotationPipelined,
  nextRotationMove,
  ROTATION_IN_FLIGHT,
} from "../../bench/strategies/leader-rotation.js";
import type { WorkerStateView } from "../../src/sim/sim-types.js";
import { smallScenario } from "./small-scenario.js";

const worker = (name: string, tasks: number, joined = true): WorkerStateView => ({
  name,
  workerId: `${name}:8083`,
  url: `http://${name}:8083`,
  version: "3.9.1",
  connectProtocol: "sessioned",
  state: joined ? "running" : "starting",
  joined,
  connectors: [],
  tasks: Array.from({ length: tasks }, (_, i) => `c/${name}-${i}`),
});
const three = [worker("worker-1", 2), worker("worker-2", 2), worker("worker-3", 2)];

describe("leader rotation: the next move", () => {
  it("restarts the leader while it is a worker left, and only once every task runs again", () => {
    const left = ["worker-1", "worker-2", "worker-3"];
    expect(
      nextRotationMove({ leader: "worker-2", heldTasks: [], workers: three }, left, [], "serial"),
    ).toEqual({
      kind: "leader",
      worker: "worker-2",
    });
    expect(
      nextRotationMove({ leader: "worker-2", heldTasks: ["c/0"], workers: three }, left, [], "serial"),
    ).toEqual({ kind: "wait" });
    expect(nextRotationMove({ leader: null, heldTasks: [], workers: three }, left, [], "serial")).toEqual({
      kind: "wait",
    });
  });

  it("serial waits for the last worker to be back with tasks; pipelined goes on with it still down", () => {
    const workers = [worker("worker-1", 0, false), worker("worker-2", 3), worker("worker-3", 3)];
    const state = { leader: "worker-3", heldTasks: [], workers };
    const left = ["worker-2", "worker-3"];
    expect(nextRotationMove(state, left, ["worker-1"], "serial")).toEqual({ kind: "wait" });
    expect(nextRotationMove(state, left, ["worker-1"], "pipelined")).toEqual({
      kind: "leader",
      worker: "worker-3",
    });
    const full = Array.from({ length: ROTATION_IN_FLIGHT }, (_, i) => `gone-${i}`);
    expect(nextRotationMove(state, left, full, "pipelined")).toEqual({ kind: "wait" });
    // The departed leader still named (its successor not yet known) is no leader to restart.
    expect(nextRotationMove({ ...state, leader: "worker-1" }, left, ["worker-1"], "pipelined")).toEqual({
      kind: "wait",
    });
  });

  it("once a restarted worker leads, the lowest-ordinal worker left goes as a follower, nothing in flight", () => {
    const state = { leader: "worker-1", heldTasks: [], workers: three };
    expect(nextRotationMove(state, ["worker-3", "worker-2"], [], "pipelined")).toEqual({
      kind: "follower",
      worker: "worker-2",
    });
    expect(nextRotationMove(state, ["worker-3", "worker-2"], ["worker-1"], "pipelined")).toEqual({
      kind: "wait",
    });
  });
});

describe("leader rotation on a 3-worker simulator", () => {
  const small = smallScenario({ delayMs: 60_000, restartMs: 10_000 });
  for (const strategy of [leaderRotation, leaderRotationPipelined]) {
    it(`${strategy.id}: the starting leader goes first, the roll settles, nothing moves on a follower step`, async () => {
      const r = await strategy.run(small, 1);
      const f = r.figures;
      if (!f) throw new Error(r.note ?? "no figures");
      expect(f.settled).toBe(true);
      expect(r.leaderPosition).toBe(1);
      expect(r.followerSteps).toEqual({ moves: 0, interruptions: 0 });
      expect(f.eagerRebalances).toBe(0);
    });
  }
});
