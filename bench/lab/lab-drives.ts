import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { stringify } from "yaml";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { checkoutRestartCommand, labClusterConfig } from "../../src/composition/lab-cluster-config.js";
import type { RolloutPace } from "../../src/core/plan/plan-types.js";
import type { RunningLab } from "../../src/lab/start-lab.js";
import type { SimState } from "../../src/sim/sim-types.js";
import type { StrategyId } from "../run-types.js";
import { maxUnavailable, replacementOrder } from "../strategies/deployment.js";
import { nextRotationMove, type RotationMode } from "../strategies/leader-rotation.js";

/** What a drive needs to know of the run: the version to restart onto (null: restart in place), the delay. */
export interface DriveShape {
  readonly from: string;
  readonly to: string;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  /** The restart time declared in connect-roll's configuration. */
  readonly declaredRestartMs: number;
}

export type Drive = (lab: RunningLab, shape: DriveShape) => Promise<void>;

/** Strimzi's roller and a Kubernetes controller both look at readiness once a second. */
const READY_POLL_MS = 1_000;
const READY_TIMEOUT_MS = 600_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function labState(lab: RunningLab): Promise<SimState> {
  const r = await fetch(`${lab.controlUrl}/sim/state`, { signal: AbortSignal.timeout(30_000) });
  return (await r.json()) as SimState;
}

async function healthy(url: string): Promise<boolean> {
  const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
  if (r === null) return false;
  await r.arrayBuffer();
  return r.status === 200;
}

async function waitFor(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${READY_TIMEOUT_MS / 1000} s`);
    await pause(READY_POLL_MS);
  }
}

/** The pod is deleted and created again: a graceful stop, then a start (on the target version if it differs). */
async function restart(lab: RunningLab, name: string, shape: DriveShape): Promise<void> {
  const query = shape.to === shape.from ? "" : `?version=${encodeURIComponent(shape.to)}`;
  const r = await fetch(`${lab.controlUrl}/sim/workers/${name}/restart${query}`, {
    method: "POST",
    signal: AbortSignal.timeout(600_000),
  });
  await r.arrayBuffer();
  if (!r.ok) throw new Error(`restart ${name}: HTTP ${r.status}`);
}

const urlOf = (lab: RunningLab, name: string) => lab.workers.find((w) => w.name === name)?.url ?? "";
const names = (lab: RunningLab) => lab.workers.map((w) => w.name);
const ordinal = (n: string) => Number(n.slice(n.lastIndexOf("-") + 1));

async function restartUntilReady(lab: RunningLab, name: string, shape: DriveShape): Promise<void> {
  await restart(lab, name, shape);
  await waitFor(`${name} ready`, () => healthy(urlOf(lab, name)));
}

async function connectRollOnLab(lab: RunningLab, shape: DriveShape, pace: RolloutPace): Promise<void> {
  const config = join(tmpdir(), `connect-roll-lab-bench-${process.pid}-${Date.now()}.yml`);
  const cluster = labClusterConfig({
    workers: lab.workers,
    controlUrl: lab.controlUrl,
    delayMs: shape.delayMs,
    sessionTimeoutMs: shape.sessionTimeoutMs,
    restartCommand: checkoutRestartCommand(lab.controlUrl),
    pollIntervalMs: 1_000,
    expectedRestartMs: shape.declaredRestartMs,
  });
  await writeFile(config, stringify({ clusters: { lab: cluster } }));
  const target = shape.to === shape.from ? "restart" : shape.to;
  const code = await runCli(
    { version: "0", commands: [runCommand] },
    ["run", "--config", config, "lab", target, "--yes", "--json", "--pace", pace],
    {
      stdout: new PassThrough().resume(),
      stderr: new PassThrough().resume(),
      stdin: new PassThrough(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error" },
      signal: new AbortController().signal,
    },
  );
  if (code !== 0) throw new Error(`connect-roll run exited ${code}`);
}

/** Leader rotation on the lab: the simulator's strategy (bench/strategies/leader-rotation.ts), read at 4 Hz. */
async function leaderRotationOnLab(lab: RunningLab, shape: DriveShape, mode: RotationMode): Promise<void> {
  const left = names(lab);
  const inFlight = new Map<string, Promise<void>>();
  const failures: unknown[] = [];
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (left.length > 0) {
    if (failures.length > 0) throw failures[0];
    if (Date.now() > deadline)
      throw new Error(`leader-rotation: not done within ${READY_TIMEOUT_MS / 1000} s`);
    const move = nextRotationMove(await labState(lab), left, [...inFlight.keys()], mode);
    if (move.kind === "wait") {
      await pause(250);
      continue;
    }
    process.stderr.write(
      `  ${new Date().toISOString()} ${move.kind} ${move.worker} in flight ${[...inFlight.keys()].join(",")}\n`,
    );
    left.splice(left.indexOf(move.worker), 1);
    const done = restartUntilReady(lab, move.worker, shape).then(
      () => void inFlight.delete(move.worker),
      (err: unknown) => void failures.push(err),
    );
    inFlight.set(move.worker, done);
    // The lab's state names the leader from the join lines: wait until the stop is under way before reading it.
    await waitFor(`${move.worker} stopping`, async () => !(await healthy(urlOf(lab, move.worker))));
  }
  await Promise.all(inFlight.values());
  if (failures.length > 0) throw failures[0];
}

/** Each strategy in real time on a lab, with the readiness it would use in production. */
export const LAB_DRIVES: Readonly<Record<StrategyId, Drive>> = {
  "connect-roll": (lab, shape) => connectRollOnLab(lab, shape, "safe"),
  "connect-roll-window": (lab, shape) => connectRollOnLab(lab, shape, "window"),
  "connect-roll-rotate": (lab, shape) => connectRollOnLab(lab, shape, "rotate"),
  "leader-rotation": (lab, shape) => leaderRotationOnLab(lab, shape, "serial"),
  "leader-rotation-pipelined": (lab, shape) => leaderRotationOnLab(lab, shape, "pipelined"),
  // Pods in name order, the next once /health answers.
  strimzi: async (lab, shape) => {
    for (const name of [...names(lab)].sort((a, b) => ordinal(a) - ordinal(b)))
      await restartUntilReady(lab, name, shape);
  },
  // maxUnavailable 1, highest ordinal first, ready once the worker answers and every task is RUNNING.
  "statefulset-tasks-ready": async (lab, shape) => {
    for (const name of [...names(lab)].sort((a, b) => ordinal(b) - ordinal(a))) {
      await restart(lab, name, shape);
      await waitFor(`${name} ready with every task RUNNING`, async () => {
        if (!(await healthy(urlOf(lab, name)))) return false;
        const s = await labState(lab);
        return s.tasks.length > 0 && s.tasks.every((t) => t.state === "RUNNING");
      });
    }
  },
  // 25 % unavailable (of 6 workers: one) in a fixed shuffled order, modelled as in-place restarts.
  deployment: async (lab, shape) => {
    const queue = replacementOrder(names(lab), 1);
    const width = maxUnavailable(queue.length);
    const lanes = Array.from({ length: width }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift())
        await restartUntilReady(lab, name, shape);
    });
    await Promise.all(lanes);
  },
  "all-at-once": async (lab, shape) => {
    await Promise.all(names(lab).map((name) => restartUntilReady(lab, name, shape)));
  },
};
