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
  "worker-not-back": {
    kind: "worker-not-back",
    worker: "worker-2",
    targetVersion: "3.7.1",
    waitedMs: 300_000,
    seen: { reachable: false, error: "connection refused" },
    attempts: 1,
  },
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
  canary: {
    kind: "canary",
    worker: "worker-1",
    version: "3.7.1",
    from: "3.6.1",
    findings: [{ metric: "task-failed", tasks: ["orders/0"] }],
    figures: null,
  },
};

function approval(kind: ApprovalKind): PendingApproval {
  return { id: `a-${kind}`, kind, step: 2, facts: FACTS[kind], options: ["approve", "abort"], askedAt: 0 };
}

function approvals(
  policy: Parameters<typeof createCliApprovals>[0]["policy"],
  timeLimitMs: number | null = null,
) {
  return createCliApprovals({
    policy,
    timeLimitMs,
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

  it("--yes never rolls a failed canary back (a second restart): abort, naming --approve=canary, which rolls it back", async () => {
    const asked: PendingApproval = { ...approval("canary"), options: ["rollback", "continue", "abort"] };
    const d = await approvals({ kind: "all" }).wait(job, asked, new AbortController().signal);
    expect(d.decision).toBe("abort");
    expect(d.by).toContain("--approve=canary");
    const parsed = parseApproveFlag("canary");
    if (parsed.kind !== "ok") throw new Error(parsed.message);
    const named = await approvals({ kind: "some", kinds: parsed.kinds }).wait(
      job,
      asked,
      new AbortController().signal,
    );
    expect(named).toMatchObject({ decision: "rollback", by: "ops@vm (--approve=canary)" });
  });

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

describe("CLI approvals: a worker not back within gate.workerReturnMs", () => {
  const notBack = (attempts = 1): PendingApproval => ({
    ...approval("worker-not-back"),
    facts: { ...FACTS["worker-not-back"], attempts } as ApprovalFacts,
    options: ["restart-again", "continue-without", "keep-waiting", "abort"],
  });
  const named = (flags: string) => {
    const parsed = parseApproveFlag(flags);
    if (parsed.kind !== "ok") throw new Error(parsed.message);
    return { kind: "some" as const, kinds: parsed.kinds, notBack: parsed.notBack };
  };
  const signal = new AbortController().signal;

  it("--yes without --timeout aborts: it never continues without the worker nor restarts it, and will not wait unbounded", async () => {
    const d = await approvals({ kind: "all" }).wait(job, notBack(), signal);
    expect(d.decision).toBe("abort");
    expect(d.by).toContain("--approve=continue-without");
    expect(d.by).toContain("--timeout");
  });

  it("--yes with --timeout keeps waiting, bounded by the time limit", async () => {
    const d = await approvals({ kind: "all" }, 1_800_000).wait(job, notBack(), signal);
    expect(d).toEqual({ decision: "keep-waiting", by: "ops@vm (--yes, bounded by --timeout 30m00s)", at: 1 });
  });

  it("--approve=restart restarts it again once; a worker restarted twice already is not restarted unattended", async () => {
    expect((await approvals(named("restart")).wait(job, notBack(1), signal)).decision).toBe("restart-again");
    const twice = await approvals(named("restart")).wait(job, notBack(2), signal);
    expect(twice.decision).toBe("abort");
    expect(twice.by).toContain("restarted 2 times already");
    const fallBack = await approvals(named("restart,continue-without")).wait(job, notBack(2), signal);
    expect(fallBack).toMatchObject({
      decision: "continue-without",
      by: "ops@vm (--approve=continue-without)",
    });
  });

  it("--approve=slow keeps waiting only while --timeout bounds the run", async () => {
    expect((await approvals(named("slow")).wait(job, notBack(), signal)).decision).toBe("abort");
    expect((await approvals(named("slow"), 60_000).wait(job, notBack(), signal)).decision).toBe(
      "keep-waiting",
    );
  });

  it("unknown --approve names list the worker-not-back ones too", () => {
    expect(parseApproveFlag("sloow")).toMatchObject({
      kind: "error",
      message: expect.stringContaining("continue-without"),
    });
  });

  it("on a terminal without a flag that answers it, the four choices are asked", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let asked = "";
    output.on("data", (chunk: Buffer) => {
      asked += chunk.toString();
      if (asked.includes("] ")) input.write("c\n");
    });
    const terminal = createCliApprovals({
      policy: { kind: "all" },
      interactive: true,
      input,
      output,
      user: "ops@vm",
      now: () => 1,
    });
    const d = await terminal.wait(job, notBack(), signal);
    expect(asked).toBe(
      "worker-2 has not come back on 3.7.1 after 5m00s. Restart it again, continue without it, or abort? [restart-again/continue-without/keep-waiting/abort] ",
    );
    expect(d).toEqual({ decision: "continue-without", by: "ops@vm", at: 1 });
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
