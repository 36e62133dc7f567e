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
