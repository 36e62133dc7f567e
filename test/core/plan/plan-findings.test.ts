import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { FindingSeverity, PlanPolicy } from "../../../src/core/plan/plan-types.js";
import { aCluster, type ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";

const policy: PlanPolicy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 300_000,
  expectedRestartMs: 60_000,
};
const target = { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" } as const;

const healthy = () =>
  aCluster()
    .withWorkers(3, (w) => w.version("3.6.1"))
    .leader("worker-1")
    .withConnector("orders", (c) => c.tasks(6, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .withConnector("clicks", (c) => c.sink().tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"]));

interface Row {
  readonly name: string;
  readonly cluster: () => ClusterSnapshotBuilder;
  readonly policy?: Partial<PlanPolicy>;
  readonly code: string;
  readonly severity: FindingSeverity;
}

const rows: readonly Row[] = [
  {
    name: "FAILED task before the start",
    cluster: () => healthy().withConnector("orders", (c) => c.task(0, "FAILED", "worker-1", "boom")),
    code: "failed-before-start",
    severity: "block",
  },
  {
    name: "FAILED connector before the start",
    cluster: () => healthy().withConnector("orders", (c) => c.state("FAILED")),
    code: "failed-before-start",
    severity: "block",
  },
  {
    name: "UNASSIGNED task before the start",
    cluster: () => healthy().withConnector("orders", (c) => c.task(1, "UNASSIGNED", "worker-2")),
    code: "unassigned-before-start",
    severity: "block",
  },
  {
    name: "unreachable worker",
    cluster: () => healthy().withWorker("worker-3", (w) => w.unreachable()),
    code: "worker-unreachable",
    severity: "block",
  },
  {
    name: "connector statuses unreadable",
    cluster: () => healthy().connectorsUnreadable(),
    code: "connectors-unreadable",
    severity: "block",
  },
  {
    name: "mixed versions already present",
    cluster: () => healthy().withWorker("worker-3", (w) => w.version("3.5.2")),
    code: "mixed-versions",
    severity: "warn",
  },
  {
    name: "exactly-once source on the workers",
    cluster: () => healthy().withWorkers(3, (w) => w.exactlyOnceSource("enabled")),
    code: "exactly-once-source",
    severity: "warn",
  },
  {
    name: "exactly-once declared in the policy",
    cluster: healthy,
    policy: { exactlyOnceSourceSupport: "preparing" },
    code: "exactly-once-source",
    severity: "warn",
  },
  {
    name: "connector requiring exactly-once",
    cluster: () => healthy().withConnector("orders", (c) => c.exactlyOnceRequired()),
    code: "exactly-once-source",
    severity: "warn",
  },
  {
    name: "survivors cannot hold the tasks",
    cluster: healthy,
    policy: { maxTasksPerWorker: 4 },
    code: "capacity-headroom",
    severity: "block",
  },
  {
    name: "survivors close to the limit",
    cluster: healthy,
    policy: { maxTasksPerWorker: 5 },
    code: "capacity-headroom",
    severity: "warn",
  },
  {
    name: "one worker only",
    cluster: () => aCluster().withWorker("worker-1", (w) => w.version("3.6.1").leader()),
    code: "single-worker",
    severity: "warn",
  },
  {
    name: "one connector concentrated on one worker",
    cluster: () => healthy().withConnector("solo", (c) => c.tasks(3, "RUNNING", "worker-2")),
    code: "connector-concentrated",
    severity: "warn",
  },
  {
    name: "no metrics",
    cluster: () => healthy().withWorkers(3, (w) => w.noMetrics()),
    code: "no-metrics",
    severity: "warn",
  },
  {
    name: "metrics on some workers only",
    cluster: () => healthy().withWorker("worker-2", (w) => w.noMetrics()),
    code: "metrics-partial",
    severity: "warn",
  },
  {
    name: "leader unknown without metrics",
    cluster: () => healthy().withWorkers(3, (w) => w.noMetrics()),
    code: "leader-unknown",
    severity: "warn",
  },
  {
    name: "eager window",
    cluster: () => healthy().withWorker("worker-2", (w) => w.version("2.2.0")),
    code: "eager-window",
    severity: "warn",
  },
  {
    name: "compatible window",
    cluster: healthy,
    policy: { connectProtocolByWorker: { "worker-2": "compatible" } },
    code: "compatible-window",
    severity: "warn",
  },
  {
    name: "protocol unknown (unparseable version)",
    cluster: () => healthy().withWorker("worker-2", (w) => w.version("7.6.0-ce-weird+x")),
    code: "protocol-unknown",
    severity: "warn",
  },
  {
    name: "delay not declared",
    cluster: healthy,
    policy: { scheduledRebalanceMaxDelayMs: null },
    code: "delay-assumed-default",
    severity: "info",
  },
  {
    name: "delay below restart",
    cluster: healthy,
    policy: { expectedRestartMs: 400_000 },
    code: "delay-below-restart",
    severity: "warn",
  },
  {
    name: "delay far above restart",
    cluster: healthy,
    policy: { expectedRestartMs: 10_000 },
    code: "delay-far-above-restart",
    severity: "info",
  },
  {
    name: "delay 0 without KAFKA-15693",
    cluster: () => healthy().withWorkers(3, (w) => w.version("3.5.1")),
    policy: { scheduledRebalanceMaxDelayMs: 0 },
    code: "delay-zero-without-fix",
    severity: "warn",
  },
  {
    name: "STOPPED connector",
    cluster: () => healthy().withConnector("archive", (c) => c.stopped().taskCount(2)),
    code: "connectors-stopped",
    severity: "info",
  },
  {
    name: "PAUSED connector",
    cluster: () => healthy().withConnector("clicks", (c) => c.paused()),
    code: "connectors-paused",
    severity: "info",
  },
  {
    name: "worker already on the target",
    cluster: () => healthy().withWorker("worker-2", (w) => w.version("3.7.1")),
    code: "already-on-target",
    severity: "info",
  },
];

describe("planRollout findings", () => {
  it.each(rows)("$name → $severity $code", (row) => {
    const plan = planRollout(row.cluster().build(), target, { ...policy, ...row.policy });
    const finding = plan.findings.find((f) => f.code === row.code && f.severity === row.severity);
    expect(finding, JSON.stringify(plan.findings, null, 2)).toBeDefined();
    expect(finding?.message.length).toBeGreaterThan(10);
    if (row.severity === "block") expect(plan.needsApproval).toBe(true);
  });

  it("a healthy 3.6 → 3.7 cluster has no warn or block finding (its data flow learned)", () => {
    const learned = { kind: "visible", flowing: 9, idle: [] } as const;
    const plan = planRollout(healthy().build(), target, policy, learned);
    expect(plan.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(plan.findings.find((f) => f.code === "data-flow")?.message).toBe(
      "Data flow: 9 tasks move data and each must move data again after its restart; 0 idle, exempt.",
    );
  });

  it("says once and why when the workers' metrics have no per-task series", () => {
    const plan = planRollout(healthy().build(), target, policy);
    expect(plan.dataFlow).toEqual({ kind: "unseen", workers: ["worker-1", "worker-2", "worker-3"] });
    expect(plan.findings.filter((f) => f.code === "data-flow-unseen")).toEqual([
      expect.objectContaining({ severity: "warn" }),
    ]);
  });

  it("finding codes are kebab-case", () => {
    for (const row of rows) expect(row.code).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
  });
});
