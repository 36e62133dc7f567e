import { labClusterConfig } from "../../src/composition/lab-cluster-config.js";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { startLab } from "../../src/lab/start-lab.js";
import type { SimState } from "../../src/sim/sim-types.js";
import type { SimWorkerEndpoint } from "../../src/sim/start-sim.js";
import { startSim } from "../../src/sim/start-sim.js";
import { FAST_REAL_TIME_SIM } from "../support/fast-sim.js";
import { waitFor } from "../support/wait-for.js";
import type { FaultProxy } from "./fault-proxy.js";

export type ChaosClusterKind = "sim" | "lab";

/** A worker's process went away or came back, as the cluster itself saw it. */
export interface ClusterWorkerEvent {
  readonly worker: string;
  readonly kind: "up" | "down";
  readonly at: number;
}

/**
 * The cluster a round rolls: the simulator in real time in this process, or a real lab (a KRaft broker and Connect
 * workers). Both answer the same control API; the workers sit behind the round's fault proxies (each advertises its
 * proxy's port, so the bot and the other workers reach it only through the proxy).
 */
export interface ChaosCluster {
  readonly kind: ChaosClusterKind;
  /** The cluster's name in the bot's config, the slash command and the lock. */
  readonly name: string;
  /** Each worker as the bot reaches it: through its proxy. */
  readonly workers: readonly SimWorkerEndpoint[];
  readonly controlUrl: string;
  /** How long a round's rollouts may take before the round counts as stuck. */
  readonly roundDeadlineMs: number;
  /** The cluster's ground truth now (tasks, restarts). */
  state(): Promise<SimState>;
  onWorkerEvent(listener: (e: ClusterWorkerEvent) => void): void;
  /** The bot's cluster section, its executor calling `controlUrl` (the replica's call-log URL). */
  config(controlUrl: string): Record<string, unknown>;
  close(): Promise<void>;
}

export interface ChaosClusterOptions {
  readonly seed: number;
  readonly workers: number;
  readonly proxies: readonly FaultProxy[];
  /** The lab's Kafka version (lab only). */
  readonly kafka?: string;
}

export function startChaosCluster(kind: ChaosClusterKind, o: ChaosClusterOptions): Promise<ChaosCluster> {
  return kind === "sim" ? startSimCluster(o) : startLabCluster(o);
}

async function startSimCluster(o: ChaosClusterOptions): Promise<ChaosCluster> {
  const sim = await startSim({
    ...FAST_REAL_TIME_SIM,
    workers: o.workers,
    connectors: 3,
    tasksPerConnector: 2,
    seed: o.seed,
    advertisedPorts: o.proxies.map((p) => p.port),
  });
  try {
    for (const [i, p] of o.proxies.entries()) p.retarget(sim.listenUrls[i] ?? "");
    await waitFor("every simulated task RUNNING", () => {
      const tasks = sim.cluster.state().tasks;
      return tasks.length > 0 && tasks.every((t) => t.state === "RUNNING");
    });
  } catch (err) {
    await sim.close();
    throw err;
  }
  return {
    kind: "sim",
    name: "sim",
    workers: sim.workers,
    controlUrl: sim.controlUrl,
    roundDeadlineMs: 120_000,
    state: async () => sim.cluster.state(),
    onWorkerEvent: (listener) =>
      void sim.cluster.onEvent((e) =>
        listener({ worker: e.worker, kind: e.kind === "worker-up" ? "up" : "down", at: Date.now() }),
      ),
    config: (controlUrl) =>
      simClusterConfig({
        clusterName: "sim",
        workers: sim.workers,
        controlUrl,
        delayMs: 600,
        restartMs: 200,
        pollIntervalMs: 150,
        quietPeriodMs: 200,
        consecutivePolls: 2,
      }),
    close: () => sim.close(),
  };
}

/** The lab's settings for a chaos round: small and quick to settle (a 3-worker group, short delay and session). */
const LAB = { connectors: 2, tasksPerConnector: 2, delayMs: 8_000, sessionTimeoutMs: 6_000 } as const;

async function startLabCluster(o: ChaosClusterOptions): Promise<ChaosCluster> {
  const lab = await startLab({
    kafka: o.kafka ?? "3.9.1",
    workers: o.workers,
    ...LAB,
    advertise: async (urls) => {
      for (const [i, p] of o.proxies.entries()) p.retarget(urls[i] ?? "");
      return o.proxies.map((p) => p.port);
    },
  });
  const listeners: ((e: ClusterWorkerEvent) => void)[] = [];
  let watching = true;
  let watcher: Promise<void> = Promise.resolve();
  try {
    // The lab's workers are real processes: their comings and goings are read off its state, five times a second.
    const seen = new Map((await lab.cluster.state()).workers.map((w) => [w.name, w.state === "running"]));
    watcher = (async () => {
      while (watching) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const state = await lab.cluster.state().catch(() => null);
        for (const w of state?.workers ?? []) {
          const up = w.state === "running";
          if (seen.get(w.name) === up) continue;
          seen.set(w.name, up);
          for (const l of listeners) l({ worker: w.name, kind: up ? "up" : "down", at: Date.now() });
        }
      }
    })();
  } catch (err) {
    await lab.close();
    throw err;
  }
  return {
    kind: "lab",
    name: "lab",
    workers: lab.workers,
    controlUrl: lab.controlUrl,
    roundDeadlineMs: 420_000,
    state: () => lab.cluster.state(),
    onWorkerEvent: (listener) => void listeners.push(listener),
    config: (controlUrl) => ({
      ...labClusterConfig({
        workers: lab.workers,
        controlUrl,
        delayMs: LAB.delayMs,
        sessionTimeoutMs: LAB.sessionTimeoutMs,
        restartCommand: [],
        expectedRestartMs: 12_000,
      }),
      // The lab's control API restarts a worker as the simulator's does: the call log sees every replica's call.
      executor: { kind: "sim", controlUrl, timeoutMs: 120_000 },
    }),
    close: async () => {
      watching = false;
      await watcher;
      await lab.close();
    },
  };
}
