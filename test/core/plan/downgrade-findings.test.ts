import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { PlanPolicy } from "../../../src/core/plan/plan-types.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";

const policy: PlanPolicy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 300_000,
  expectedRestartMs: 60_000,
};
const on = (version: string) =>
  aCluster()
    .withWorkers(3, (w) => w.version(version))
    .leader("worker-1")
    .withConnector("orders", (c) => c.tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .build();
const upgrade = (version: string) => ({ kind: "upgrade", version, argument: version }) as const;
const downgradeOf = (from: string, to: string) =>
  planRollout(on(from), upgrade(to), policy).findings.filter((f) => f.code === "downgrade");

describe("the plan of a downgrade", () => {
  it.each([
    ["4.1.2", "3.9.2"],
    ["3.9.2", "3.6.2"],
  ])(
    "%s → %s: a warning that names every worker and says Kafka allows it between cooperative versions",
    (from, to) => {
      const [f] = downgradeOf(from, to);
      expect(f?.severity).toBe("warn");
      expect(f?.message).toMatch(
        new RegExp(`^This is a downgrade: worker-\\d runs ${from.replaceAll(".", "\\.")}, worker-\\d runs`),
      );
      expect(f?.message).toMatch(/allows it between cooperative versions/);
    },
  );

  it("back to a version before 2.3: the eager-only target can run tasks twice (KAFKA-13816)", () => {
    expect(downgradeOf("2.8.2", "2.2.2")[0]?.message).toMatch(/speaks only the eager protocol.*KAFKA-13816/);
  });

  it("an upgrade, or a restart, says nothing of the kind", () => {
    expect(downgradeOf("3.9.2", "4.0.2")).toEqual([]);
    const restart = planRollout(
      on("4.1.2"),
      { kind: "restart", version: "4.1.2", argument: "restart" },
      policy,
    );
    expect(restart.findings.map((f) => f.code)).not.toContain("downgrade");
  });
});
