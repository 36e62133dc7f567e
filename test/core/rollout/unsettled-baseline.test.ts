import { describe, expect, it } from "vitest";
import { finishReasonText } from "../../../src/wording/reason-text.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";
import { startDriver } from "./rollout-driver.js";
import { cluster, SETTINGS, WORKERS } from "./rollout-fixtures.js";

/** The cluster as it comes up: connectors created, tasks not started yet. */
const comingUp = () =>
  aCluster("prod")
    .withWorkers(3, (w) => w.version("3.6.1"))
    .leader("worker-3")
    .withConnector("orders", (c) => c.on("worker-3").tasks(6, "UNASSIGNED", WORKERS));

describe("decide: the first read must be a settled baseline", () => {
  it("waits while the cluster shows no connectors, then plans from the settled read", () => {
    const d = startDriver();
    d.read(
      0,
      aCluster("prod").withWorkers(3, (w) => w.version("3.6.1").noMetrics()),
    );
    expect(d.state.phase.kind).toBe("planning");
    expect(d.action).toEqual({ kind: "read-cluster", afterMs: SETTINGS.pollIntervalMs });
    d.read(10_000, comingUp());
    expect(d.state.phase.kind).toBe("planning");
    d.read(20_000, cluster());
    expect(d.eventsOf("rollout-planned")).toHaveLength(1);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    // Nothing was "created during the rollout": the freeze is the settled read's.
    expect(d.approvalsAsked()).toEqual([]);
  });

  it("refuses with the reason when the cluster does not settle in time; nothing is restarted", () => {
    const d = startDriver();
    for (let t = 0; t <= 60_000; t += 10_000) d.read(t, comingUp());
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "failed" });
    const reason = d.eventsOf("rollout-finished")[0]?.reason;
    expect(reason).toMatchObject({
      kind: "unsettled-at-start",
      unsettled: {
        kind: "not-started",
        items: [0, 1, 2, 3, 4, 5].map((task) => ({ connector: "orders", task, state: "UNASSIGNED" })),
      },
      waitedMs: SETTINGS.gatePolicy.expectedSettleMs,
    });
    // As the views word it: the first five not started, the rest counted.
    expect(reason && finishReasonText(reason)).toBe(
      "the cluster did not settle before the start (not started yet: orders/0 UNASSIGNED, orders/1 UNASSIGNED, " +
        "orders/2 UNASSIGNED, orders/3 UNASSIGNED, orders/4 UNASSIGNED and 1 more) within 1m00s; nothing was " +
        "restarted. Start again once it has settled",
    );
    expect(d.restarts).toEqual([]);
  });

  it("an empty cluster whose metrics confirm it has no work is planned once the wait is over", () => {
    const d = startDriver();
    const empty = () =>
      aCluster("prod")
        .withWorkers(3, (w) => w.version("3.6.1").metrics({ taskCount: 0, connectorCount: 0 }))
        .leader("worker-3");
    d.read(0, empty());
    expect(d.state.phase.kind).toBe("planning");
    d.read(60_000, empty());
    expect(d.eventsOf("rollout-planned")).toHaveLength(1);
  });

  it("an empty cluster without metrics to confirm it is refused once the wait is over", () => {
    const d = startDriver();
    const empty = () => aCluster("prod").withWorkers(3, (w) => w.version("3.6.1").noMetrics());
    d.read(0, empty()).read(60_000, empty());
    expect(d.eventsOf("rollout-finished")[0]?.reason).toMatchObject({
      kind: "unsettled-at-start",
      unsettled: { kind: "no-connectors-unconfirmed" },
    });
    expect(d.restarts).toEqual([]);
  });
});
