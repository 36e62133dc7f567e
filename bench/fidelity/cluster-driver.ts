import type { LabOptions } from "../../src/lab/lab-options.js";
import { type RunningLab, startLab } from "../../src/lab/start-lab.js";
import type { SimState } from "../../src/sim/sim-types.js";
import { startSim } from "../../src/sim/start-sim.js";

/**
 * One scenario script drives either cluster through the control API: the simulator in virtual time (waiting is
 * `POST /sim/advance`) or the real lab in real time (waiting is waiting).
 */
export type FidelityState = SimState;

export interface ClusterShape {
  readonly version: string;
  readonly workers: number;
  readonly connectors: number;
  readonly tasksPerConnector: number;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  readonly connectProtocols?: Readonly<Record<string, "eager" | "compatible" | "sessioned">>;
  /** Other versions a scenario may restart workers onto (fetched up front for the lab). */
  readonly alsoVersions?: readonly string[];
}

export interface ClusterDriver {
  readonly kind: "sim" | "lab";
  readonly workers: readonly { readonly name: string; readonly url: string; readonly metricsUrl: string }[];
  state(): Promise<FidelityState>;
  /** POST to the control API; returns the status. */
  control(path: string): Promise<number>;
  putConnector(name: string, body: Record<string, unknown>): Promise<number>;
  /** Lets `ms` of cluster time pass. */
  pass(ms: number): Promise<void>;
  /** Lets cluster time pass until `probe` holds (cluster time bound `withinMs`); returns the state that held. */
  until(what: string, probe: (s: FidelityState) => boolean, withinMs: number): Promise<FidelityState>;
  close(): Promise<void>;
}

/** How long a simulated worker takes from its start to joining (set from what the lab measures on 2 cores). */
export const SIM_START_MS = 6_000;

function httpDriver(
  kind: "sim" | "lab",
  controlUrl: string,
  workers: ClusterDriver["workers"],
  close: () => Promise<void>,
): ClusterDriver {
  const state = async () =>
    (await (
      await fetch(`${controlUrl}/sim/state`, { signal: AbortSignal.timeout(30_000) })
    ).json()) as FidelityState;
  const pass = async (ms: number) => {
    if (kind === "sim") {
      const r = await fetch(`${controlUrl}/sim/advance?ms=${Math.max(0, Math.round(ms))}`, {
        method: "POST",
      });
      if (!r.ok) throw new Error(`advance: HTTP ${r.status}`);
    } else await new Promise((resolve) => setTimeout(resolve, ms));
  };
  return {
    kind,
    workers,
    state,
    async control(path) {
      const r = await fetch(`${controlUrl}${path}`, { method: "POST", signal: AbortSignal.timeout(600_000) });
      await r.arrayBuffer();
      return r.status;
    },
    async putConnector(name, body) {
      const r = await fetch(`${controlUrl}/sim/connectors/${encodeURIComponent(name)}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      await r.arrayBuffer();
      return r.status;
    },
    pass,
    async until(what, probe, withinMs) {
      const start = (await state()).now;
      for (;;) {
        const s = await state();
        if (probe(s)) return s;
        if (s.now - start > withinMs) throw new Error(`${kind}: ${what}: not within ${withinMs} ms`);
        await pass(kind === "sim" ? 100 : 250);
      }
    },
    close,
  };
}

export async function startSimDriver(shape: ClusterShape, seed = 7): Promise<ClusterDriver> {
  const overrides = Object.fromEntries(
    Object.entries(shape.connectProtocols ?? {}).map(([name, p]) => [name, { connectProtocol: p }]),
  );
  const sim = await startSim({
    virtualTime: true,
    workers: shape.workers,
    connectors: shape.connectors,
    tasksPerConnector: shape.tasksPerConnector,
    version: shape.version,
    delayMs: shape.delayMs,
    sessionTimeoutMs: shape.sessionTimeoutMs,
    restartMs: SIM_START_MS,
    restartJitter: 0,
    taskStartMs: 300,
    rebalanceMs: 200,
    seed,
    ...(Object.keys(overrides).length > 0 ? { workerOverrides: overrides } : {}),
  });
  const driver = httpDriver("sim", sim.controlUrl, sim.workers, () => sim.close());
  await driver.until(
    "steady",
    (s) => s.tasks.length > 0 && s.tasks.every((t) => t.state === "RUNNING") && s.heldTasks.length === 0,
    120_000,
  );
  return driver;
}

export async function startLabDriver(
  shape: ClusterShape,
  extra: Partial<LabOptions> = {},
): Promise<ClusterDriver> {
  const lab = await startLab({
    kafka: shape.version,
    workers: shape.workers,
    connectors: shape.connectors,
    tasksPerConnector: shape.tasksPerConnector,
    delayMs: shape.delayMs,
    sessionTimeoutMs: shape.sessionTimeoutMs,
    ...(shape.connectProtocols ? { connectProtocols: shape.connectProtocols } : {}),
    ...extra,
  });
  return httpDriver("lab", lab.controlUrl, lab.workers, () => lab.close());
}

/** A driver over a lab that is already running (its owner closes it; `close` here does nothing). */
export function labDriverOf(lab: RunningLab): ClusterDriver {
  return httpDriver("lab", lab.controlUrl, lab.workers, async () => undefined);
}
