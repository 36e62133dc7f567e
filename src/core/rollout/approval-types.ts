/** Why a person is asked and what they decided: the approvals of the rollout state machine. */

export type Decision = "approve" | "abort" | "keep-waiting" | "continue";

/**
 * Why a person is asked:
 * - `blocking-findings`: the plan has block findings (FAILED tasks before the start, unreachable workers…);
 * - `eager-window`: the next step runs while the group negotiates eager (stop-the-world rebalances);
 * - `slow-gate`: the settle gate is slower than expected (delay included);
 * - `gate-failed`: the gate saw something wrong (a new FAILED task, a missing connector);
 * - `config-changed`: a connector's config or task count changed since the start (config freeze);
 * - `restart-failed`: the executor reported a failure;
 * - `restart-unconfirmed`: after a takeover, a restart was issued but cannot be confirmed.
 */
export type ApprovalKind =
  | "blocking-findings"
  | "eager-window"
  | "slow-gate"
  | "gate-failed"
  | "config-changed"
  | "restart-failed"
  | "restart-unconfirmed";

export interface PendingApproval {
  readonly id: string;
  readonly kind: ApprovalKind;
  /** Step number (from 1) the approval is about, or null for the whole rollout. */
  readonly step: number | null;
  /** One sentence shown as the prompt's title. */
  readonly prompt: string;
  /** Lines of detail (findings, gate reasons, changed connectors). */
  readonly details: readonly string[];
  /** The decisions offered, first = the "go" decision. */
  readonly options: readonly Decision[];
  readonly askedAt: number;
}

export interface ApprovalRecord {
  readonly id: string;
  readonly kind: ApprovalKind;
  readonly step: number | null;
  readonly decision: Decision;
  readonly by: string;
  readonly at: number;
}
