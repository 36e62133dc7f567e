import type { RollbackTarget } from "../plan/plan-types.js";
import { versionMatches } from "../version.js";
import type { RolloutState } from "./rollout-state.js";

/** What rolling back a finished rollout would do: return `workers` (newest move first) to `version`. */
export interface RollbackPlan {
  readonly kind: "rollback";
  readonly version: string;
  readonly target: RollbackTarget;
}

/** Why a rollout cannot be rolled back, as a fact the caller words (`rollbackRefusalText`). */
export type RollbackRefusal =
  /** No rollout of the cluster is on record. */
  | { readonly kind: "no-rollout" }
  | { readonly kind: "not-an-upgrade"; readonly jobId: string }
  | { readonly kind: "not-finished"; readonly jobId: string; readonly status: string }
  | { readonly kind: "nothing-moved"; readonly jobId: string; readonly version: string }
  /** Workers whose version before their step was not read: nobody knows what to return them to. */
  | { readonly kind: "unknown-from"; readonly jobId: string; readonly workers: readonly string[] }
  /** The moved workers came from different versions: one rollback returns them to one version. */
  | {
      readonly kind: "mixed-from";
      readonly jobId: string;
      readonly versions: readonly { readonly worker: string; readonly version: string }[];
    };

/**
 * The rollback of a finished upgrade: every worker whose restart onto the target it issued (settled, continued,
 * stopped mid-step by an abort, or one whose executor failed and may have acted), newest restart first, back to the
 * version its plan recorded for it. One still on that version is skipped when the rollback reads the cluster; a
 * worker the rollout found on the target already is not its move and is left alone.
 */
export function rollbackOf(state: RolloutState): RollbackPlan | RollbackRefusal {
  const jobId = state.jobId;
  if (state.target.kind !== "upgrade") return { kind: "not-an-upgrade", jobId };
  if (state.phase.kind !== "finished") return { kind: "not-finished", jobId, status: state.phase.kind };
  const to = state.target.version;
  // A worker this rollout returned already (a failed canary's rollback step) is not a move to undo.
  const returned = new Set(state.steps.filter((s) => s.toVersion !== undefined).map((s) => s.worker));
  const moved = state.steps
    .filter((s) => s.restartIssuedAt !== null && s.toVersion === undefined && !returned.has(s.worker))
    .filter((s) => s.fromVersion === null || !versionMatches(s.fromVersion, to))
    .sort((a, b) => (b.restartIssuedAt ?? 0) - (a.restartIssuedAt ?? 0) || b.step - a.step);
  if (moved.length === 0) return { kind: "nothing-moved", jobId, version: to };
  const unknown = moved.filter((s) => s.fromVersion === null).map((s) => s.worker);
  if (unknown.length > 0) return { kind: "unknown-from", jobId, workers: unknown };
  const versions = moved.map((s) => ({ worker: s.worker, version: s.fromVersion ?? "" }));
  const distinct = new Set(versions.map((v) => v.version));
  const first = versions[0]?.version ?? "";
  if (distinct.size > 1) return { kind: "mixed-from", jobId, versions };
  return {
    kind: "rollback",
    version: first,
    target: { of: jobId, from: to, workers: moved.map((s) => s.worker) },
  };
}
