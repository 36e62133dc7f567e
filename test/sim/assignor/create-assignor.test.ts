import { describe, expect, it } from "vitest";
import { behaviourForVersion, createAssignor } from "../../../src/sim/assignor/create-assignor.js";
import { exponentialBackoff } from "../../../src/sim/assignor/load-balancing.js";
import { roundRobinsLostWork } from "../../../src/sim/protocol-model.js";

describe("createAssignor / behaviourForVersion", () => {
  it.each([
    ["3.7.0", true, true, true],
    ["3.9.0", true, true, true],
    ["3.6.1", true, true, true],
    ["3.6.0", true, false, true],
    ["3.5.2", true, true, true],
    ["3.5.1", true, false, true],
    ["3.4.0", true, false, true],
    ["3.3.2", false, false, true],
    ["2.8.0", false, false, true],
    ["2.7.1", false, false, true],
    ["2.7.0", false, false, false],
    ["2.6.2", false, false, true],
    ["2.6.1", false, false, false],
    ["2.3.0", false, false, false],
  ])("%s → backoff=%s, zeroDelayReassigns=%s, roundRobin=%s", (version, backoff, zero, rr) => {
    const { behaviour, known } = behaviourForVersion(version, 300_000);
    expect(known).toBe(true);
    expect(behaviour).toEqual({
      maxDelayMs: 300_000,
      revocationBackoff: backoff,
      zeroDelayReassignsImmediately: zero,
      roundRobinLostWork: rr,
    });
  });

  it("unknown versions get the oldest behaviour and say so", () => {
    for (const version of ["banana", "7.6.0-ce"]) {
      const { behaviour, known } = behaviourForVersion(version, 1000);
      expect(known).toBe(false);
      expect(behaviour).toEqual({
        maxDelayMs: 1000,
        revocationBackoff: false,
        zeroDelayReassignsImmediately: false,
        roundRobinLostWork: false,
      });
    }
    expect(roundRobinsLostWork("banana")).toBe(false);
  });

  it("eager protocol → eager assignor; compatible and sessioned → incremental", () => {
    expect(createAssignor({ protocol: "eager", leaderVersion: "3.7.0", maxDelayMs: 300_000 }).kind).toBe(
      "eager",
    );
    expect(createAssignor({ protocol: "compatible", leaderVersion: "2.3.1", maxDelayMs: 300_000 }).kind).toBe(
      "incremental",
    );
    expect(createAssignor({ protocol: "sessioned", leaderVersion: "3.7.0", maxDelayMs: 300_000 }).kind).toBe(
      "incremental",
    );
  });

  it("each call returns a fresh instance with empty state (a new leader)", () => {
    const opts = { protocol: "sessioned", leaderVersion: "3.7.0", maxDelayMs: 300_000 } as const;
    const round = (memberIds: string[], generation: number) => ({
      now: 1000,
      generation,
      lastCompletedGeneration: generation - 1,
      members: memberIds.map((memberId, i) => ({
        memberId,
        owned: i === 0 ? { connectors: ["c"], tasks: ["c/0"] } : { connectors: [], tasks: [] },
      })),
      configured: { connectors: ["c"], tasks: ["c/0", "c/1"] },
    });
    const first = createAssignor(opts);
    first.performAssignment(round(["a", "b"], 1));
    const second = createAssignor(opts);
    expect(second).not.toBe(first);
    const r = second.performAssignment(round(["a"], 2));
    expect(r.delayMs).toBe(0);
    expect(r.byMember.get("a")?.assigned.tasks).toEqual(["c/1"]);
  });
});

describe("ExponentialBackoff(1, 40, maxDelay, 0) for consecutive revoking rounds", () => {
  it("40 ms, 1600 ms, 64000 ms, then the max delay", () => {
    const backoff = exponentialBackoff(1, 40, 300_000);
    expect([1, 2, 3, 4, 5, 10].map(backoff)).toEqual([40, 1600, 64_000, 300_000, 300_000, 300_000]);
  });

  it("max delay 0 → always 0; max delay 1 → always 1", () => {
    expect([1, 2, 3].map(exponentialBackoff(0, 40, 0))).toEqual([0, 0, 0]);
    expect([1, 2, 3].map(exponentialBackoff(1, 40, 1))).toEqual([1, 1, 1]);
  });
});
