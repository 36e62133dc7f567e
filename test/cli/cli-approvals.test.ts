import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createCliApprovals, parseApproveFlag } from "../../src/cli/cli-approvals.js";
import type { ApprovalFacts, ApprovalKind, PendingApproval } from "../../src/core/rollout/approval-types.js";

const job = {} as Parameters<ReturnType<typeof createCliApprovals>["wait"]>[0];

/** A prompt of each kind, about worker-2 of prod. */
const FACTS: Readonly<Record<ApprovalKind, ApprovalFacts>> = {
  "blocking-findings": { kind: "blocking-findings", cluster: "prod", findings: [] },
  "eager-window": { kind: "eager-window", cluster: "prod", worker: "worker-2" },
  "slow-gate": { kind: "gate-slow", worker: "worker-2", elapsedMs: 60_000, reasons: [] },
  "gate-failed": { kind: "gate-failed", worker: "worker-2", reasons: [] },
  "config-changed": { kind: "config-changed", cluster: "prod", changes: [] },
  "restart-failed": { kind: "restart-failed", worker: "worker-2", error: "boom", mayHaveRun: true },
  "restart-unconfirmed": {
    kind: "restart-unconfirmed",
    worker: "worker-2",
    seen: { reachable: false, error: null },
  },
  "task-restart": {
    kind: "task-restart",
    worker: "worker-2",
    tasks: [{ task: "orders/1", workerId: "worker-2:8083", trace: "ConnectException: boom" }],
    reasons: [],
  },
  "recently-started": {
    kind: "recently-started",
    cluster: "prod",
    workers: [{ worker: "worker-2", startedAt: Date.UTC(2026, 11, 1, 10, 0, 0) }],
    othersStartedAt: Date.UTC(2026, 10, 28, 10, 0, 0),
    now: Date.UTC(2026, 11, 1, 10, 0, 40),
  },
};

function approval(kind: ApprovalKind): PendingApproval {
  return { id: `a-${kind}`, kind, step: 2, facts: FACTS[kind], options: ["approve", "abort"], askedAt: 0 };
}

function approvals(policy: Parameters<typeof createCliApprovals>[0]["policy"]) {
  return createCliApprovals({
    policy,
    interactive: false,
    input: new PassThrough(),
    output: new PassThrough(),
    user: "ops@vm",
    now: () => 1,
  });
}

describe("CLI approvals", () => {
  it.each(["restart-unconfirmed", "restart-failed"] as const)(
    "--yes never answers %s (it may restart a worker twice): abort, with the flag that would allow it",
    async (kind) => {
      const d = await approvals({ kind: "all" }).wait(job, approval(kind), new AbortController().signal);
      expect(d.decision).toBe("abort");
      expect(d.by).toContain("--approve=restart");
    },
  );

  it("--yes answers the other prompts with their go decision", async () => {
    for (const kind of ["eager-window", "slow-gate", "config-changed", "blocking-findings"] as const) {
      const d = await approvals({ kind: "all" }).wait(job, approval(kind), new AbortController().signal);
      expect(d.decision).toBe("approve");
    }
  });

  it("--yes never restarts recently started workers again: abort, saying which --since counts them as restarted", async () => {
    const asked: PendingApproval = {
      ...approval("recently-started"),
      step: null,
      options: ["continue", "approve", "abort"],
    };
    const d = await approvals({ kind: "all" }).wait(job, asked, new AbortController().signal);
    expect(d.decision).toBe("abort");
    expect(d.by).toContain(
      "worker-2 started long after the others; rerun with --since 2026-12-01T10:00:00.000Z",
    );
    const parsed = parseApproveFlag("restart");
    if (parsed.kind !== "ok") throw new Error(parsed.message);
    const named = await approvals({ kind: "some", kinds: parsed.kinds }).wait(
      job,
      asked,
      new AbortController().signal,
    );
    expect(named.decision).toBe("approve");
  });

  it("the named --approve=restart answers a second restart's prompt", async () => {
    const parsed = parseApproveFlag("restart");
    if (parsed.kind !== "ok") throw new Error(parsed.message);
    const d = await approvals({ kind: "some", kinds: parsed.kinds }).wait(
      job,
      approval("restart-unconfirmed"),
      new AbortController().signal,
    );
    expect(d.decision).toBe("approve");
  });
});

describe("CLI approvals on a terminal", () => {
  it("asks the prompt the views word from the facts, with the decisions offered", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let asked = "";
    output.on("data", (chunk: Buffer) => {
      asked += chunk.toString();
      if (asked.includes("] ")) input.write("approve\n");
    });
    const approvals = createCliApprovals({
      policy: { kind: "some", kinds: new Set() },
      interactive: true,
      input,
      output,
      user: "ops@vm",
      now: () => 1,
    });
    const restartFailed: PendingApproval = {
      id: "a-1",
      kind: "restart-failed",
      step: 2,
      facts: { kind: "restart-failed", worker: "connect-2", error: "boom", mayHaveRun: true },
      options: ["approve", "abort"],
      askedAt: 0,
    };
    const d = await approvals.wait(job, restartFailed, new AbortController().signal);
    expect(asked).toBe(
      "Restarting connect-2 failed (it may have run partly). Retry the restart? [approve/abort] ",
    );
    expect(d).toEqual({ decision: "approve", by: "ops@vm", at: 1 });
  });
});
