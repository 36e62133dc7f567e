import type { RolloutTarget } from "../../../src/core/plan/plan-types.js";
import type { Decision, PendingApproval } from "../../../src/core/rollout/approval-types.js";
import { beginRollout, decide } from "../../../src/core/rollout/decide.js";
import type {
  RolloutEffect,
  RolloutEvent,
  RolloutInput,
  Transition,
} from "../../../src/core/rollout/rollout-io.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import { approvalDetails, approvalPrompt } from "../../../src/wording/approval-text.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { resolvedSettings, type TestSettings } from "../../support/rollout-settings.js";
import { SETTINGS, UPGRADE } from "./rollout-fixtures.js";

type RestartWorker = Extract<RolloutEffect, { kind: "restart-worker" }>;
type EventOf<K extends RolloutEvent["kind"]> = Extract<RolloutEvent, { kind: K }>;

export interface DriverOptions {
  readonly target?: RolloutTarget;
  /** Settings as a test writes them (resolved like the composition root resolves them). */
  readonly settings?: Partial<TestSettings>;
  readonly now?: number;
}

/**
 * Drives `decide` like a runner would, one input at a time, and remembers what came out: every emitted event, every
 * `restart-worker` effect, the last action, and a one-line transcript per input
 * (`"read → worker-back, gate-waiting | read-cluster(10000)"`). Time is whatever each call says.
 */
export class RolloutDriver {
  readonly events: RolloutEvent[] = [];
  readonly restarts: RestartWorker[] = [];
  readonly lines: string[] = [];
  /** Events of the last input only. */
  lastEvents: RolloutEvent[] = [];

  constructor(
    public state: RolloutState,
    public action: RolloutEffect,
  ) {}

  feed(input: RolloutInput, label: string = input.kind): this {
    return this.apply(decide(this.state, input), label);
  }

  read(now: number, cluster: ClusterSnapshotBuilder): this {
    return this.feed({ kind: "cluster-read", now, snapshot: cluster.copy().at(now).build() }, "read");
  }

  /** A probe of `worker` alone, as the cluster `cluster` shows it at `now`. */
  probed(now: number, cluster: ClusterSnapshotBuilder, worker: string): this {
    const seen = cluster
      .copy()
      .at(now)
      .build()
      .workers.find((w) => w.name === worker);
    if (!seen) throw new Error(`probed: no ${worker} in the cluster`);
    return this.feed({ kind: "worker-probed", now, worker: seen }, "probe");
  }

  /** The executor accepted the restart of the step in flight (or of `step`). */
  accepted(now: number, step = this.inFlightStep()): this {
    return this.feed({ kind: "restart-accepted", now, step, detail: `restart ${step} accepted` }, "accepted");
  }

  failed(now: number, mayHaveRun: boolean, step = this.inFlightStep()): this {
    return this.feed(
      { kind: "restart-failed", now, step, message: "executor said no", mayHaveRun },
      "restart-failed",
    );
  }

  /** Answers the pending approval (or the approval `id`). */
  answer(now: number, decision: Decision, id = this.pending()?.id ?? "none", by = "alice"): this {
    return this.feed({ kind: "approval-decided", now, approvalId: id, decision, by }, decision);
  }

  control(now: number, action: "pause" | "resume" | "abort", by = "alice"): this {
    return this.feed({ kind: "control-requested", now, action, by }, action);
  }

  takeover(now: number, owner = "replica-b"): this {
    return this.feed({ kind: "taken-over", now, owner }, "taken-over");
  }

  /** The approval the last action waits for, if any. */
  pending(): PendingApproval | undefined {
    return this.action.kind === "await-approval" ? this.action.approval : undefined;
  }

  /** The pending approval as a person reads it: its facts worded by the views. */
  pendingWorded(): WordedApproval | undefined {
    const approval = this.pending();
    return approval === undefined ? undefined : worded(approval);
  }

  eventsOf<K extends RolloutEvent["kind"]>(kind: K): EventOf<K>[] {
    return this.events.filter((e): e is EventOf<K> => e.kind === kind);
  }

  approvalsAsked(): PendingApproval[] {
    return this.eventsOf("approval-requested").map((e) => e.approval);
  }

  private inFlightStep(): number {
    const p = this.state.phase;
    return p.kind === "restarting" ? p.step : (this.restarts.at(-1)?.step ?? 0);
  }

  private apply(t: Transition, label: string): this {
    this.state = t.state;
    const last = t.effects.at(-1);
    if (!last) throw new Error(`${label}: decide returned no effect`);
    for (const e of t.effects.slice(0, -1))
      if (e.kind !== "emit") throw new Error(`${label}: ${e.kind} before the last effect`);
    if (last.kind === "emit") throw new Error(`${label}: the last effect is an emit`);
    this.action = last;
    this.lastEvents = t.effects.flatMap((e) => (e.kind === "emit" ? [e.event] : []));
    this.events.push(...this.lastEvents);
    if (last.kind === "restart-worker") this.restarts.push(last);
    const emitted = this.lastEvents.map((e) => e.kind).join(", ") || "-";
    this.lines.push(`${label} → ${emitted} | ${describeAction(last)}`);
    return this;
  }
}

export type WordedApproval = PendingApproval & {
  readonly prompt: string;
  readonly details: readonly string[];
};

/** An approval with the prompt and details worded from its facts (src/wording/approval-text.ts). */
export function worded(approval: PendingApproval): WordedApproval {
  return { ...approval, prompt: approvalPrompt(approval), details: approvalDetails(approval) };
}

function describeAction(e: RolloutEffect): string {
  switch (e.kind) {
    case "read-cluster":
      return `read-cluster(${e.afterMs})`;
    case "probe-worker":
      return `probe-worker(${e.worker}, ${e.afterMs})`;
    case "restart-worker":
      return `restart-worker(${e.worker})`;
    case "await-approval":
      return `await-approval(${e.approval.kind})`;
    case "finish":
      return `finish(${e.result})`;
    default:
      return e.kind;
  }
}

/** A new rollout (job "job-1", requested by "bob") waiting for its first read. */
export function startDriver(options: DriverOptions = {}): RolloutDriver {
  const t = beginRollout({
    jobId: "job-1",
    cluster: "prod",
    target: options.target ?? UPGRADE,
    image: null,
    requestedBy: "bob",
    settings: resolvedSettings({ ...SETTINGS, ...options.settings }),
    now: options.now ?? 0,
  });
  const first = t.effects.at(-1);
  if (!first) throw new Error("beginRollout returned no effect");
  return new RolloutDriver(t.state, first);
}

/** A driver resumed from a checkpoint: the state goes through JSON like the job store's copy does. */
export function resumeDriver(state: RolloutState): RolloutDriver {
  const restored = JSON.parse(JSON.stringify(state)) as RolloutState;
  return new RolloutDriver(restored, { kind: "read-cluster", afterMs: 0 });
}
