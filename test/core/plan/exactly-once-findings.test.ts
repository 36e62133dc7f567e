import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { PlanPolicy } from "../../../src/core/plan/plan-types.js";
import { aCluster, type ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";

const policy: PlanPolicy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 300_000,
  expectedRestartMs: 60_000,
};
const target = { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" } as const;

/** orders exactly-once (2 tasks on each of 3 workers, worker-3 leads), clicks a plain sink. */
const eosCluster = () =>
  aCluster()
    .withWorkers(3, (w) => w.version("3.6.1"))
    .leader("worker-3")
    .withConnector("orders", (c) =>
      c.exactlyOnceRequired().tasks(6, "RUNNING", ["worker-1", "worker-2", "worker-3"]),
    )
    .withConnector("clicks", (c) => c.sink().tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"]));

const findings = (b: ClusterSnapshotBuilder) => planRollout(b.build(), target, policy).findings;

/** Each worker's readings of orders' tasks, with or without transactions. */
const readings = (b: ClusterSnapshotBuilder, transactional: Record<string, boolean>) => {
  for (const [worker, tasks] of [
    ["worker-1", [0, 3]],
    ["worker-2", [1, 4]],
    ["worker-3", [2, 5]],
  ] as const)
    b.withWorker(worker, (w) => {
      for (const t of tasks)
        w.flow(`orders/${t}`, 100, transactional[worker] ? { transactions: "committed" } : {});
      return w;
    });
  return b;
};

describe("plan findings for exactly-once source connectors", () => {
  it("names the connectors, which tasks run on which worker, the leader's part, and what the gate waits for", () => {
    const eos = findings(eosCluster()).find((f) => f.code === "exactly-once-source");
    expect(eos?.severity).toBe("warn");
    expect(eos?.message).toContain(
      "Exactly-once source connectors orders (exactly.once.support=required), 6 tasks — worker-1: orders/0, orders/3; worker-2: orders/1, orders/4; worker-3 (leader): orders/2, orders/5.",
    );
    expect(eos?.message).toContain(
      "The leader worker-3 goes last: its own 2 exactly-once tasks restart with it",
    );
    expect(eos?.message).toContain("committed a transaction since it started");
  });

  it("a connector without the config is found exactly-once by its tasks' transactions", () => {
    const b = readings(
      eosCluster().withConnector("orders", (c) => c.config("exactly.once.support", "requested")),
      { "worker-1": true, "worker-2": true, "worker-3": true },
    );
    expect(findings(b).find((f) => f.code === "exactly-once-source")?.message).toContain(
      "orders (exactly.once.support=requested)",
    );
  });

  it("a worker whose tasks of an exactly-once connector run without transactions next to workers that commit them is named", () => {
    const b = readings(eosCluster(), { "worker-1": true, "worker-2": false, "worker-3": true });
    const mixed = findings(b).filter((f) => f.code === "exactly-once-support-mixed");
    expect(mixed).toHaveLength(1);
    expect(mixed[0]?.message).toMatch(
      /^worker-2 runs orders\/1, orders\/4 without transactions while worker-1, worker-3 commit them: its exactly\.once\.source\.support is not enabled/,
    );
  });

  it("workers with the support and no connector using it: one short finding; none at all without either", () => {
    const supportOnly = findings(
      aCluster()
        .withWorkers(3, (w) => w.version("3.6.1").exactlyOnceSource("enabled"))
        .leader("worker-1")
        .withConnector("orders", (c) => c.tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"])),
    ).filter((f) => f.code.startsWith("exactly-once"));
    expect(supportOnly.map((f) => f.message)).toEqual([
      expect.stringContaining(
        "exactly.once.source.support is enabled on 3 workers and no source connector uses it",
      ),
    ]);
    const none = findings(
      aCluster()
        .withWorkers(3, (w) => w.version("3.6.1"))
        .leader("worker-1")
        .withConnector("orders", (c) => c.tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"])),
    ).filter((f) => f.code.startsWith("exactly-once"));
    expect(none).toEqual([]);
  });
});
