/**
 * The rollout state machine's vocabulary. `decide(state, input)` (decide.ts) is pure: it returns the next state and
 * the effects the runner must perform. The state is the checkpoint: it is saved (fenced) after every transition, so
 * another replica can resume from it. The types live in four files, re-exported here:
 * - approval-types.ts: decisions, approval kinds, pending approvals and their records;
 * - rollout-state.ts: the checkpoint (steps, phases, settings, the open window);
 * - rollout-io.ts: inputs fed into `decide`, the events and effects it returns;
 * - rollout-reasons.ts: why it finished, why a step was skipped or moved, a step's note (facts the views word).
 */
export type { ApprovalKind, ApprovalRecord, Decision, PendingApproval } from "./approval-types.js";
export type { RolloutEffect, RolloutEvent, RolloutInput, Transition } from "./rollout-io.js";
export type {
  FinishReason,
  NotStarted,
  ReorderReason,
  SkipReason,
  StepNote,
  UnsettledStart,
  WordedText,
} from "./rollout-reasons.js";
export {
  type DisruptionTrack,
  type FreezeSnapshot,
  type Phase,
  type ResumePoint,
  ROLLOUT_STATE_VERSION,
  type RolloutResult,
  type RolloutSettings,
  type RolloutState,
  type StepMeasurements,
  type StepRecord,
  type StepStatus,
} from "./rollout-state.js";
