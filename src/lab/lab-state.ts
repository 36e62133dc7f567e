import type { SimState } from "../sim/sim-types.js";
import type { LabLedger, LabTimeline } from "./lab-ledger.js";
import type { LabRebalances } from "./lab-rebalances.js";
import type { ConnectorStatus, LabConnectorKind } from "./lab-rest.js";
import type { LabSinkLedger } from "./lab-sink-ledger.js";
import type { LabStalls } from "./lab-stalls.js";
import { advertisedIdOf, type LabWorker } from "./lab-worker.js";
import { protocolName } from "./worker-log.js";

/** A connector the lab created, with the config it last put. */
export interface LabConnector {
  readonly kind: LabConnectorKind;
  readonly tasksMax: number;
  readonly config: Record<string, string>;
}

export type LabState = SimState & { readonly timeline: LabTimeline };

/** What the lab tracks of its cluster, read for its state. */
export interface LabStateSources {
  readonly workers: readonly LabWorker[];
  readonly connectors: ReadonlyMap<string, LabConnector>;
  readonly ledger: LabLedger;
  readonly sinks: LabSinkLedger;
  readonly stalls: LabStalls;
  readonly rebalances: LabRebalances;
  /** The worker a join line's leader URL names. */
  readonly workerAt: (url: string | null) => LabWorker | undefined;
}

/**
 * The lab cluster's state in the simulator's shape, at `now`: the workers and counters from the logs and the
 * ledger, each task's state from the statuses Connect reported (null: no worker answered).
 */
export function labState(
  from: LabStateSources,
  statuses: readonly ConnectorStatus[] | null,
  now: number,
): LabState {
  const { workers, connectors, ledger } = from;
  const configured: string[] = [];
  for (const [name, c] of connectors) for (let i = 0; i < c.tasksMax; i += 1) configured.push(`${name}/${i}`);
  const statusOf = new Map<string, { state: string; workerId: string }>();
  for (const c of statuses ?? [])
    for (const t of c.tasks) statusOf.set(`${c.name}/${t.id}`, { state: t.state, workerId: t.worker_id });
  const running = new Set<string>();
  for (const w of workers) if (w.jvm !== null) for (const t of ledger.runningOn(w.spec.name)) running.add(t);
  const join = from.rebalances.latest();
  const deadline =
    join !== null && join.delayMs > 0 && join.at + join.delayMs > now ? join.at + join.delayMs : null;
  const restarts: Record<string, number> = {};
  for (const w of workers) restarts[w.spec.name] = Math.max(0, w.starts - 1);
  const { rebalances, eagerRebalances } = from.rebalances.counts();
  const totals = ledger.totals(now);
  return {
    now,
    generation: join?.generation ?? 0,
    protocol: protocolName(join?.protocolVersion ?? 2),
    leader: from.workerAt(join?.leaderUrl ?? null)?.spec.name ?? null,
    workers: workers.map((w) => ({
      name: w.spec.name,
      workerId: advertisedIdOf(w.spec),
      url: w.url,
      version: w.version,
      connectProtocol: protocolName(w.lastJoin?.protocolVersion ?? (w.connectProtocol === "eager" ? 0 : 2)),
      state: w.state,
      joined: w.jvm !== null && w.lastJoin !== null,
      connectors: w.jvm === null ? [] : [...(w.lastJoin?.connectors ?? [])].sort(),
      tasks: w.jvm === null ? [] : ledger.runningOn(w.spec.name).sort(),
    })),
    heldTasks: configured.filter((t) => !running.has(t)),
    delayDeadline: deadline,
    tasks: configured.map((id) => {
      const s = statusOf.get(id);
      return { id, state: s?.state ?? "UNASSIGNED", workerId: s?.workerId ?? null };
    }),
    counters: {
      rebalances,
      eagerRebalances,
      taskMoves: totals.taskMoves,
      taskInterruptions: totals.taskInterruptions,
      taskDowntimeMs: totals.taskDowntimeMs,
      restarts,
    },
    dataFlow: {
      ...ledger.dataFlow(now),
      stalled: from.stalls.stalledNow(running, now),
      sink: [...connectors.values()].some((c) => c.kind === "sink") ? from.sinks.state() : null,
    },
    timeline: ledger.timeline(now),
  };
}
