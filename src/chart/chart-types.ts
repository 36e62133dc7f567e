import type { ApprovalKind, Decision } from "../core/rollout/approval-types.js";
import type { StepStatus } from "../core/rollout/rollout-state.js";

/**
 * What the timeline chart shows of a rollout, as plain data (times in ms since the rollout's start): what the tests
 * check, and what `chartOption` lays out. Built from the checkpoint alone, so a finished rollout, a running one and
 * one read back from the store draw the same way.
 */
export interface ChartData {
  readonly title: string;
  readonly subtitle: string;
  /** Epoch ms of the rollout's start (x = 0). */
  readonly startedAt: number;
  /** Length of the x axis: to the finish, or to `now` for a running rollout. */
  readonly spanMs: number;
  readonly running: boolean;
  /** One lane per worker, in step order. */
  readonly lanes: readonly ChartLane[];
  /** Eager and pace windows: steps restarted back to back with one gate at the end. */
  readonly windows: readonly ChartWindow[];
  /** When a scheduled delay hands held tasks back (a pace window's, or a follower step's of its own). */
  readonly deadlines: readonly ChartDeadline[];
  readonly approvals: readonly ChartApproval[];
  /** Each step's start (its restart issued). */
  readonly stepStarts: readonly { readonly step: number; readonly worker: string; readonly at: number }[];
  /** Share (0..1) of the tasks not running, and not flowing (null where data flow was not visible), per read. */
  readonly share: readonly ChartSharePoint[];
  /** True when some read saw the data flow (the chart then draws the not-flowing line). */
  readonly flowVisible: boolean;
}

export type SegmentKind = "down" | "settling" | "on-target";

export interface ChartSegment {
  /** `down`: restart issued → back on the target; `settling`: back, its gate (or its window's) not passed; `on-target`: settled. */
  readonly kind: SegmentKind;
  readonly from: number;
  readonly to: number;
}

export interface ChartLane {
  readonly step: number;
  readonly worker: string;
  readonly isLeader: boolean;
  readonly status: StepStatus;
  readonly segments: readonly ChartSegment[];
}

export interface ChartWindow {
  readonly kind: "eager" | "pace";
  readonly steps: readonly number[];
  readonly from: number;
  readonly to: number;
}

export interface ChartDeadline {
  readonly at: number;
  /** The steps whose held tasks it hands back. */
  readonly steps: readonly number[];
}

export interface ChartApproval {
  readonly at: number;
  readonly kind: ApprovalKind;
  readonly step: number | null;
  /** Null while the prompt waits for an answer. */
  readonly decision: Decision | null;
  /** Who decided (a Slack user id, a terminal user, or `policy`); null while waiting. */
  readonly by: string | null;
}

export interface ChartSharePoint {
  readonly at: number;
  readonly down: number;
  readonly notFlowing: number | null;
}

export interface ChartDataOptions {
  /** For a running rollout: where the x axis ends (open segments are drawn up to it). Default: the last checkpoint. */
  readonly now?: number;
  /** The run stopped before the rollout finished (its checkpoint kept to resume): the title says so. */
  readonly interrupted?: boolean;
  /** Leave the start's date out of the subtitle (a simulator in virtual time starts at the epoch). */
  readonly hideStart?: boolean;
  /** A line under the title, e.g. "simulated cluster". */
  readonly note?: string;
}
