import { describe, expect, it } from "vitest";
import {
  hasRevocationBackoff,
  protocolSupport,
  reassignsImmediatelyWithZeroDelay,
} from "../../src/core/protocol.js";
import {
  backsOffRevokingRounds,
  groupProtocolOf,
  reassignsAtOnceWithZeroDelay,
  type SimProtocolSetting,
  selectGroupProtocol,
  simProtocolOf,
  workerProtocols,
} from "../../src/sim/protocol-model.js";
import { useSims } from "./support/sim-fixture.js";

const startSims = useSims({ workers: 3, connectors: 2, tasksPerConnector: 2, seed: 5 });

describe("workerProtocols: what a worker puts in its JoinGroup", () => {
  it.each([
    // version, connect.protocol, mode, JoinGroup protocols (most preferred first)
    ["2.2.2", null, "eager", ["default"]],
    ["2.2.2", "sessioned", "eager", ["default"]], // no such setting before 2.3: ignored
    ["2.3.1", null, "compatible", ["compatible", "default"]],
    ["2.3.1", "eager", "eager", ["default"]],
    ["2.3.1", "compatible", "compatible", ["compatible", "default"]],
    ["2.4.0", null, "sessioned", ["sessioned", "compatible", "default"]],
    ["3.7.1", "compatible", "compatible", ["compatible", "default"]],
    ["3.9.1", null, "sessioned", ["sessioned", "compatible", "default"]],
    ["3.9.1", "eager", "eager", ["default"]],
    ["4.1.1", null, "sessioned", ["sessioned", "compatible", "default"]],
    ["4.1.1", "sessioned", "sessioned", ["sessioned", "compatible", "default"]],
  ] as const)("%s with connect.protocol=%s runs %s and joins with %j", (version, setting, mode, join) => {
    expect(workerProtocols(version, setting)).toEqual({ kind: "joins", mode, joinProtocols: join });
  });

  it("refuses what Kafka refuses (sessioned on 2.3) and versions it has no model of", () => {
    const refused = (version: string, setting: SimProtocolSetting) => {
      const p = workerProtocols(version, setting);
      return p.kind === "refused" ? p.message : null;
    };
    expect(refused("2.3.1", "sessioned")).toContain("rejects connect.protocol=sessioned");
    expect(refused("5.0.0", null)).toContain("no model of Kafka 5.x");
    expect(refused("banana", null)).toContain("not a Kafka version");
  });
});

describe("selectGroupProtocol: the broker's vote", () => {
  it("is the highest protocol every Connect member lists", () => {
    const s = ["sessioned", "compatible", "default"] as const;
    const c = ["compatible", "default"] as const;
    const e = ["default"] as const;
    expect(selectGroupProtocol([s, s, s])).toBe("sessioned");
    expect(selectGroupProtocol([s, c, s])).toBe("compatible");
    expect(selectGroupProtocol([s, c, e])).toBe("default");
    expect(selectGroupProtocol([e])).toBe("default");
    expect(selectGroupProtocol([])).toBeNull();
  });

  it("is a majority vote over the common protocols, not a ranking", () => {
    // Two members prefer b, one prefers a; both are common: b wins although a comes first for one member.
    expect(
      selectGroupProtocol([
        ["b", "a"],
        ["a", "b"],
        ["b", "a"],
      ]),
    ).toBe("b");
    expect(
      selectGroupProtocol([
        ["a", "b"],
        ["a", "b"],
        ["b", "a"],
      ]),
    ).toBe("a");
    // c is not common, so the member preferring it votes for its next common choice.
    expect(
      selectGroupProtocol([
        ["c", "a", "b"],
        ["b", "a"],
        ["a", "b", "c"],
      ]),
    ).toBe("a");
    // A tie: the first protocol voted for.
    expect(
      selectGroupProtocol([
        ["b", "a"],
        ["a", "b"],
      ]),
    ).toBe("b");
  });

  it("a member sharing no protocol with the group has no vote to give: no choice", () => {
    expect(selectGroupProtocol([["a"], ["b"]])).toBeNull();
  });

  it("Kafka's 'default' is the simulator's 'eager'", () => {
    expect(simProtocolOf("default")).toBe("eager");
    expect(simProtocolOf("compatible")).toBe("compatible");
    expect(simProtocolOf("sessioned")).toBe("sessioned");
  });
});

describe("groupProtocolOf: mixed groups", () => {
  const w = (version: string, connectProtocol: SimProtocolSetting = null) => ({ version, connectProtocol });

  it.each([
    ["3.6.2 + 3.7.1 (a version change alone)", [w("3.6.2"), w("3.7.1")], "sessioned"],
    ["3.9.1 + 4.1.1", [w("3.9.1"), w("4.1.1"), w("4.1.1")], "sessioned"],
    ["one 2.2 worker", [w("2.2.2"), w("3.7.1"), w("3.7.1")], "eager"],
    ["one 2.3 worker", [w("3.7.1"), w("2.3.1")], "compatible"],
    ["one connect.protocol=compatible", [w("4.1.1"), w("4.1.1", "compatible")], "compatible"],
    ["one connect.protocol=eager", [w("3.9.1", "eager"), w("4.1.1")], "eager"],
    [
      "a worker Kafka would not start is not in the group",
      [w("3.7.1"), w("2.3.1", "sessioned")],
      "sessioned",
    ],
  ] as const)("%s → %s", (_name, workers, expected) => {
    expect(groupProtocolOf(workers)).toBe(expected);
  });

  it("agrees with the planner's own prediction wherever both model the worker", () => {
    // Two models written apart: a disagreement here means one of them is wrong (the lab decides which).
    const versions = [
      "2.0.1",
      "2.2.2",
      "2.3.0",
      "2.3.1",
      "2.4.0",
      "2.8.2",
      "3.6.2",
      "3.7.1",
      "3.9.1",
      "4.0.0",
      "4.1.1",
    ];
    const settings: SimProtocolSetting[] = [null, "eager", "compatible", "sessioned"];
    for (const version of versions)
      for (const setting of settings) {
        const sim = workerProtocols(version, setting);
        if (sim.kind === "refused") continue;
        const planner = protocolSupport(version, setting);
        expect(planner.known, `${version} ${setting}`).toBe(true);
        expect(sim.joinProtocols.map(simProtocolOf), `${version} ${setting}`).toEqual(planner.advertised);
      }
  });
});

describe("the assignor's fixes by a leader's version", () => {
  it("agree with the planner's own checks", () => {
    // Written apart, like the protocols: a disagreement means one of them is wrong.
    const versions = [
      "2.8.2",
      "3.3.2",
      "3.4.0",
      "3.5.1",
      "3.5.2",
      "3.6.0",
      "3.6.1",
      "3.7.0",
      "3.9.1",
      "4.1.1",
    ];
    for (const version of versions) {
      expect(backsOffRevokingRounds(version), version).toBe(hasRevocationBackoff(version));
      expect(reassignsAtOnceWithZeroDelay(version), version).toBe(reassignsImmediatelyWithZeroDelay(version));
    }
  });
});

describe("the simulator runs what the model says", () => {
  it("a 4.1 worker with connect.protocol=compatible in a 3.9/4.1 group: compatible, and sessioned once it is gone", async () => {
    const { c } = await startSims({
      version: "4.1.1",
      workerOverrides: { "worker-1": { version: "3.9.1" }, "worker-3": { connectProtocol: "compatible" } },
    });
    const s = await c.state();
    expect(s.protocol).toBe("compatible");
    expect(s.workers.map((x) => [x.version, x.connectProtocol])).toEqual([
      ["3.9.1", "sessioned"],
      ["4.1.1", "sessioned"],
      ["4.1.1", "compatible"],
    ]);
    expect((await c.post("/sim/workers/worker-3/stop?mode=graceful")).status).toBe(200);
    await c.advance(1_000);
    expect((await c.state()).protocol).toBe("sessioned");
  });

  it("refuses to start a worker on a version that would reject its connect.protocol, or that it has no model of", async () => {
    const { c } = await startSims({ workerOverrides: { "worker-2": { connectProtocol: "sessioned" } } });
    const r = await c.post("/sim/workers/worker-2/restart?version=2.3.1");
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain("worker-2: Kafka 2.3.1 rejects connect.protocol=sessioned");
    expect((await c.post("/sim/workers/worker-1/restart?version=5.0.0")).status).toBe(400);
    await expect(startSims({ workerOverrides: { "worker-1": { version: "5.1.0" } } })).rejects.toThrow(
      "worker-1: the simulator has no model of Kafka 5.x",
    );
    await expect(startSims({ version: "2.3.1", connectProtocol: "sessioned" })).rejects.toThrow(
      /^every worker: Kafka 2\.3\.1 rejects connect\.protocol=sessioned/,
    );
  });
});
