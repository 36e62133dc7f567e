import { createInterface } from "node:readline/promises";
import type { ApprovalKind, Decision, PendingApproval } from "../core/rollout/approval-types.js";
import type { ApprovalSource } from "../jobs/runner/runner-deps.js";
import type { DecisionRecord } from "../jobs/store/job-record.js";
import { approvalPrompt } from "../wording/approval-text.js";

/** `--approve` names, as users type them, for the approval kinds. */
const APPROVE_FLAG_KINDS: Readonly<Record<string, readonly ApprovalKind[]>> = {
  blocking: ["blocking-findings"],
  eager: ["eager-window"],
  slow: ["slow-gate"],
  "gate-failed": ["gate-failed"],
  config: ["config-changed"],
  restart: ["restart-failed", "restart-unconfirmed", "recently-started"],
  "task-restart": ["task-restart"],
};

/**
 * Prompts whose "go" may restart a worker a second time (the first restart may have acted). `--yes` never answers
 * them: only a named `--approve=restart` (or a person at the prompt) can.
 */
const SECOND_RESTART_KINDS: readonly ApprovalKind[] = [
  "restart-failed",
  "restart-unconfirmed",
  "recently-started",
];

export type ApprovePolicy =
  | { readonly kind: "all" }
  | { readonly kind: "some"; readonly kinds: ReadonlySet<ApprovalKind> };

/** Parses `--approve=eager,slow`; returns an error message for unknown names. */
export function parseApproveFlag(
  text: string,
): { kind: "ok"; kinds: Set<ApprovalKind> } | { kind: "error"; message: string } {
  const kinds = new Set<ApprovalKind>();
  for (const raw of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const mapped = APPROVE_FLAG_KINDS[raw];
    if (!mapped)
      return {
        kind: "error",
        message: `--approve: unknown "${raw}" (use ${Object.keys(APPROVE_FLAG_KINDS).join(", ")})`,
      };
    for (const k of mapped) kinds.add(k);
  }
  return { kind: "ok", kinds };
}

export interface CliApprovalOptions {
  readonly policy: ApprovePolicy;
  readonly interactive: boolean;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly user: string;
  readonly now: () => number;
}

/**
 * Approvals from a terminal or a pipeline: kinds allowed by `--yes`/`--approve` get the prompt's "go" decision; others
 * are asked on a terminal, and answered "abort" when nobody can be asked (CI), so nothing risky happens unattended.
 */
export function createCliApprovals(o: CliApprovalOptions): ApprovalSource {
  // A flag that allows a second restart means "restart": for recently started workers that is `approve`, not the
  // prompt's first option (which counts them as restarted, what `--since` does from the terminal).
  const go = (approval: PendingApproval): Decision =>
    approval.kind === "recently-started" && approval.options.includes("approve")
      ? "approve"
      : (approval.options.find((d) => d !== "abort") ?? "abort");
  return {
    async wait(_job, approval, signal): Promise<DecisionRecord> {
      const risksSecondRestart = SECOND_RESTART_KINDS.includes(approval.kind);
      const allowed = o.policy.kind === "all" ? !risksSecondRestart : o.policy.kinds.has(approval.kind);
      if (allowed) {
        const flag = Object.entries(APPROVE_FLAG_KINDS).find(([, kinds]) =>
          kinds.includes(approval.kind),
        )?.[0];
        const how = o.policy.kind === "all" ? "--yes" : `--approve=${flag ?? approval.kind}`;
        return { decision: go(approval), by: `${o.user} (${how})`, at: o.now() };
      }
      if (!o.interactive) {
        // Nobody decided: say so, and which flag would have answered it (not "abort by root@host").
        const flag = Object.entries(APPROVE_FLAG_KINDS).find(([, kinds]) =>
          kinds.includes(approval.kind),
        )?.[0];
        const facts = approval.facts;
        const why =
          facts.kind === "recently-started"
            ? `${facts.workers.map((w) => w.worker).join(", ")} started long after the others; rerun with --since ${new Date(Math.min(...facts.workers.map((w) => w.startedAt))).toISOString()} to count them as restarted, or --approve=restart to restart them too`
            : o.policy.kind === "all" && risksSecondRestart
              ? `--yes never answers ${approval.kind}: it may restart a worker twice; pass --approve=restart to allow it`
              : `no terminal to ask and no --approve=${flag ?? approval.kind} or --yes`;
        return { decision: "abort", by: `the CLI policy (${why})`, at: o.now() };
      }
      const rl = createInterface({ input: o.input, output: o.output });
      try {
        const choices = approval.options.join("/");
        for (;;) {
          const answer = (await rl.question(`${approvalPrompt(approval)} [${choices}] `, { signal }))
            .trim()
            .toLowerCase();
          const picked = approval.options.find((d) => d === answer || d.startsWith(answer));
          if (answer !== "" && picked) return { decision: picked, by: o.user, at: o.now() };
        }
      } finally {
        rl.close();
      }
    },
  };
}
