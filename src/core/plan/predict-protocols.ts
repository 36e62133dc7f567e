import {
  type ConnectProtocol,
  type ConnectProtocolSetting,
  negotiateProtocol,
  PROTOCOL_RANK,
  protocolSupport,
} from "../protocol.js";
import type { WorkerSnapshot } from "../snapshot.js";
import type { StepWindow } from "./plan-types.js";

export interface ProtocolStep {
  readonly before: ConnectProtocol | null;
  readonly during: ConnectProtocol | null;
  readonly after: ConnectProtocol | null;
  /**
   * The worst protocol any rebalance of the step runs. Eager when the group is eager before, during or after the
   * step: the first cooperative rebalance after an eager generation still stops every task.
   */
  readonly exposure: ConnectProtocol | null;
}

export interface ProtocolForecast {
  readonly steps: readonly ProtocolStep[];
  readonly eagerWindows: readonly StepWindow[];
  readonly compatibleWindows: readonly StepWindow[];
  /** Workers (or the target) whose version's protocol support is unknown; assumed eager-only. */
  readonly unknown: readonly string[];
  /**
   * Set when the group negotiates a lower protocol now (its metrics) than the versions and declared settings
   * explain: some worker sets `connect.protocol` lower than we know. Every step is then treated as exposed to it.
   */
  readonly observedLower?: { readonly observed: ConnectProtocol; readonly predicted: ConnectProtocol | null };
}

export interface ProtocolMember {
  readonly worker: WorkerSnapshot;
  readonly setting: ConnectProtocolSetting;
  /** The version after its step (the target, or its current version for a plain restart). */
  readonly versionAfter: string;
}

/**
 * The protocol the group negotiates around each step, members in step order (skipped workers are passed as
 * members that never restart: `restarted = false`).
 */
export function predictProtocols(
  members: readonly (ProtocolMember & { readonly restarted: boolean })[],
): ProtocolForecast {
  const unknown = new Set<string>();
  const advertise = (m: ProtocolMember, version: string | null, label: string) => {
    const support = protocolSupport(version ?? "", m.setting);
    if (!support.known) unknown.add(label);
    return support.advertised;
  };
  const before = members.map((m) =>
    advertise(m, m.worker.version, `${m.worker.name} (${m.worker.version ?? "?"})`),
  );
  const after = members.map((m) => advertise(m, m.versionAfter, `${m.worker.name} (${m.versionAfter})`));
  const stepIndexes = members.flatMap((m, i) => (m.restarted ? [i] : []));
  const steps: ProtocolStep[] = [];
  let done = 0;
  for (const index of stepIndexes) {
    const current = members.map((_, i) => (stepIndexes.slice(0, done).includes(i) ? after[i] : before[i]));
    const pick = (list: typeof current) => negotiateProtocol(list.flatMap((a) => (a ? [a] : [])));
    const protocolBefore = pick(current);
    const protocolDuring = pick(current.filter((_, i) => i !== index));
    const protocolAfter = pick(current.map((a, i) => (i === index ? after[i] : a)));
    steps.push({
      before: protocolBefore,
      during: protocolDuring,
      after: protocolAfter,
      exposure: worstProtocol([protocolBefore, protocolDuring, protocolAfter]),
    });
    done += 1;
  }
  return {
    steps,
    eagerWindows: windowsOf(steps, (s) => s.exposure === "eager"),
    compatibleWindows: windowsOf(steps, (s) => s.exposure === "compatible"),
    unknown: [...unknown],
  };
}

/**
 * Checks the forecast against the protocol the group negotiates now (every live worker's `connect-protocol` metric).
 * A real cluster whose metric says EAGER while every version and declared setting supports cooperative rebalancing
 * has a worker with `connect.protocol=eager` we were not told about; which one, and so when the eager window ends,
 * is unknown: every step is then planned as an eager (or compatible) window, the worst case.
 */
export function reconcileObservedProtocol(
  forecast: ProtocolForecast,
  observed: ConnectProtocol | null,
): ProtocolForecast {
  const predicted = forecast.steps[0]?.before ?? null;
  if (observed === null || predicted === null || PROTOCOL_RANK[observed] >= PROTOCOL_RANK[predicted])
    return forecast;
  const steps = forecast.steps.map((s) => ({
    ...s,
    before: lower(s.before, observed),
    during: lower(s.during, observed),
    exposure: lower(s.exposure, observed),
  }));
  return {
    ...forecast,
    steps,
    eagerWindows: windowsOf(steps, (s) => s.exposure === "eager"),
    compatibleWindows: windowsOf(steps, (s) => s.exposure === "compatible"),
    observedLower: { observed, predicted },
  };
}

function lower(a: ConnectProtocol | null, b: ConnectProtocol): ConnectProtocol {
  return a === null || PROTOCOL_RANK[b] < PROTOCOL_RANK[a] ? b : a;
}

function worstProtocol(list: readonly (ConnectProtocol | null)[]): ConnectProtocol | null {
  let worst: ConnectProtocol | null = null;
  for (const p of list)
    if (p !== null && (worst === null || PROTOCOL_RANK[p] < PROTOCOL_RANK[worst])) worst = p;
  return worst;
}

function windowsOf(steps: readonly ProtocolStep[], inWindow: (s: ProtocolStep) => boolean): StepWindow[] {
  const windows: StepWindow[] = [];
  let from: number | null = null;
  steps.forEach((s, i) => {
    const n = i + 1;
    if (inWindow(s) && from === null) from = n;
    if (!inWindow(s) && from !== null) {
      windows.push({ fromStep: from, toStep: n - 1 });
      from = null;
    }
  });
  if (from !== null) windows.push({ fromStep: from, toStep: steps.length });
  return windows;
}
