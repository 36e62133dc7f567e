import { createInterface } from "node:readline/promises";
import { formatDuration } from "../core/format-duration.js";
import type {
  ApprovalFacts,
  ApprovalKind,
  Decision,
  PendingApproval,
} from "../core/rollout/approval-types.js";
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
  canary: ["canary"],
};

/**
 * Prompts whose "go" may restart a worker a second time (the first restart may have acted). `--yes` never answers
 * them: only a named `--approve=restart` (or a person at the prompt) can.
 */
const SECOND_RESTART_KINDS: readonly ApprovalKind[] = [
  "restart-failed",
  "restart-unconfirmed",
  "recently-started",
  "canary",
];

/**
 * What `--approve` names allow at the `worker-not-back` prompt, whose choices differ in risk rather than in kind:
 * `restart` restarts the worker again (once per step), `continue-without` goes on without it, `slow` keeps waiting
 * (only while `--timeout` bounds the run).
 */
type NotBackChoice = Extract<Decision, "restart-again" | "continue-without" | "keep-waiting">;
const APPROVE_FLAG_NOT_BACK: Readonly<Record<string, NotBackChoice>> = {
  restart: "restart-again",
  "continue-without": "continue-without",
  slow: "keep-waiting",
};
const APPROVE_FLAGS = [
  ...new Set([...Object.keys(APPROVE_FLAG_KINDS), ...Object.keys(APPROVE_FLAG_NOT_BACK)]),
];

export type ApprovePolicy =
  | { readonly kind: "all" }
  | {
      readonly kind: "some";
      readonly kinds: ReadonlySet<ApprovalKind>;
      /** The `worker-not-back` choices the named flags allow (absent: none). */
      readonly notBack?: ReadonlySet<Decision>;
    };

/** Parses `--approve=eager,slow`; returns an error message for unknown names. */
export function parseApproveFlag(
  text: string,
): { kind: "ok"; kinds: Set<ApprovalKind>; notBack: Set<Decision> } | { kind: "error"; message: string } {
  const kinds = new Set<ApprovalKind>();
  const notBack = new Set<Decision>();
  for (const raw of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const mapped = APPROVE_FLAG_KINDS[raw];
    const choice = APPROVE_FLAG_NOT_BACK[raw];
    if (!mapped && !choice)
      return { kind: "error", message: `--approve: unknown "${raw}" (use ${APPROVE_FLAGS.join(", ")})` };
    for (const k of mapped ?? []) kinds.add(k);
    if (choice) notBack.add(choice);
  }
  return { kind: "ok", kinds, notBack };
}

/** The order an unattended `worker-not-back` answer is picked in: the worker back first, then on without it. */
const NOT_BACK_ORDER: readonly NotBackChoice[] = ["restart-again", "continue-without", "keep-waiting"];

/**
 * A worker not back, unattended. `--yes` never restarts it again nor goes on without it: it keeps waiting when
 * `--timeout` bounds the run, and aborts otherwise (an unbounded wait is no answer). The named flags allow the other
 * choices; a worker already restarted again is not restarted a third time unattended.
 */
function notBackAnswer(
  policy: ApprovePolicy,
  approval: PendingApproval,
  facts: Extract<ApprovalFacts, { kind: "worker-not-back" }>,
  timeLimitMs: number | null,
): { decision: Decision; how: string } | { decision: null; why: string } {
  const allowed = policy.kind === "all" ? new Set<Decision>(["keep-waiting"]) : (policy.notBack ?? new Set());
  const usable = (d: NotBackChoice) =>
    allowed.has(d) &&
    approval.options.includes(d) &&
    (d !== "restart-again" || facts.attempts < 2) &&
    (d !== "keep-waiting" || timeLimitMs !== null);
  const picked = NOT_BACK_ORDER.find(usable);
  if (picked) {
    const flag = Object.entries(APPROVE_FLAG_NOT_BACK).find(([, d]) => d === picked)?.[0] ?? picked;
    const bound =
      picked === "keep-waiting" ? `, bounded by --timeout ${formatDuration(timeLimitMs ?? 0)}` : "";
    return { decision: picked, how: `${policy.kind === "all" ? "--yes" : `--approve=${flag}`}${bound}` };
  }
  const again =
    allowed.has("restart-again") && facts.attempts >= 2
      ? ` (it was restarted ${facts.attempts} times already; --approve=restart restarts it again once)`
      : "";
  return {
    decision: null,
    why: `${facts.worker} is not back${again}; unattended, --approve=restart restarts it again, --approve=continue-without goes on without it, and --yes keeps waiting only within --timeout`,
  };
}

export interface CliApprovalOptions {
  readonly policy: ApprovePolicy;
  readonly interactive: boolean;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly user: string;
  readonly now: () => number;
  /** `run --timeout`: the run's time limit, which bounds an unattended keep-waiting (null: none). */
  readonly timeLimitMs?: number | null;
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
      const facts = approval.facts;
      if (facts.kind === "worker-not-back") {
        const answer = notBackAnswer(o.policy, approval, facts, o.timeLimitMs ?? null);
        if (answer.decision !== null)
          return { decision: answer.decision, by: `${o.user} (${answer.how})`, at: o.now() };
        if (!o.interactive) return { decision: "abort", by: `the CLI policy (${answer.why})`, at: o.now() };
        return ask(approval, signal);
      }
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
        const why =
          facts.kind === "recently-started"
            ? `${facts.workers.map((w) => w.worker).join(", ")} started long after the others; rerun with --since ${new Date(Math.min(...facts.workers.map((w) => w.startedAt))).toISOString()} to count them as restarted, or --approve=restart to restart them too`
            : o.policy.kind === "all" && risksSecondRestart
              ? `--yes never answers ${approval.kind}: it may restart a worker twice; pass --approve=${flag ?? "restart"} to allow it`
              : `no terminal to ask and no --approve=${flag ?? approval.kind} or --yes`;
        return { decision: "abort", by: `the CLI policy (${why})`, at: o.now() };
      }
      return ask(approval, signal);
    },
  };

  /** Asks on the terminal until one of the offered decisions (or the start of one) is typed. */
  async function ask(approval: PendingApproval, signal: AbortSignal): Promise<DecisionRecord> {
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
  }
}
