import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { stringify } from "yaml";
import { planCommand } from "../../src/cli/commands/plan.js";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { checkoutRestartCommand, labClusterConfig } from "../../src/composition/lab-cluster-config.js";
import { parsePrometheusText } from "../../src/connect/prometheus.js";
import { TASK_FLOW_METRIC_NAMES, taskFlowFromPrometheus } from "../../src/connect/task-flow-metrics.js";
import type { PlanJson } from "../../src/core/plan/plan-json.js";
import type { LabOptions } from "../../src/lab/lab-options.js";
import { type RunningLab, startLab } from "../../src/lab/start-lab.js";
import type { SimState } from "../../src/sim/sim-types.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";

export type LabState = SimState;

export interface RolloutEventLine {
  readonly kind: string;
  readonly step?: number;
  readonly worker?: string;
  readonly result?: string;
  readonly approval?: { readonly kind: string; readonly decision?: string };
  readonly plan?: {
    readonly steps: readonly {
      readonly worker: string;
      readonly isLeader: boolean;
      readonly predictedDowntimeMs: number;
      readonly predictedMoves: number;
      readonly protocolAfter: string;
    }[];
    readonly eagerWindows: readonly { readonly fromStep: number; readonly toStep: number }[];
  };
  readonly [key: string]: unknown;
}

export async function labState(lab: RunningLab): Promise<LabState> {
  return (await (
    await fetch(`${lab.controlUrl}/sim/state`, { signal: AbortSignal.timeout(15_000) })
  ).json()) as LabState;
}

/** test/support/wait-for.ts's `waitFor` at the lab's pace: every 200 ms, for up to 3 minutes by default. */
export function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 180_000,
): Promise<T> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 200 });
}

/** Each task's records counter as the workers' exporters show it now ("connector/N" → the sum over workers). */
async function taskRecords(lab: RunningLab): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const w of lab.workers) {
    const res = await fetch(w.metricsUrl, { signal: AbortSignal.timeout(15_000) }).catch(() => null);
    if (res === null || !res.ok) continue;
    const flow = taskFlowFromPrometheus(
      parsePrometheusText(await res.text(), TASK_FLOW_METRIC_NAMES).samples,
    );
    for (const [task, r] of Object.entries(flow ?? {})) out.set(task, (out.get(task) ?? 0) + r.records);
  }
  return out;
}

/**
 * Waits until every one of `tasks` has moved records between two readings of the exporters: a sink whose tasks
 * were just restarted (a config change) reads nothing until its consumer group has assigned its partitions.
 */
export async function untilTasksMoveData(lab: RunningLab, tasks: readonly string[]): Promise<void> {
  let before = await taskRecords(lab);
  await until(`${tasks.join(", ")} moving data in the exporters' series`, async () => {
    const now = await taskRecords(lab);
    const moved = tasks.every((t) => (now.get(t) ?? 0) > (before.get(t) ?? Number.POSITIVE_INFINITY));
    before = now;
    return moved;
  });
}

/** A lab and a connect-roll config for it (cluster `lab`, the command executor). */
export async function startLabWithConfig(
  options: LabOptions,
  extra: Record<string, unknown> = {},
): Promise<{ lab: RunningLab; config: string; cluster: Record<string, unknown> }> {
  const lab = await startLab(options);
  return { lab, ...(await writeLabConfig(lab, options, extra)) };
}

/** A connect-roll config (cluster `lab`, the command executor) for a running lab, written to a temporary file. */
export async function writeLabConfig(
  lab: RunningLab,
  options: Pick<LabOptions, "delayMs" | "sessionTimeoutMs">,
  extra: Record<string, unknown> = {},
): Promise<{ config: string; cluster: Record<string, unknown> }> {
  const cluster = {
    ...labClusterConfig({
      workers: lab.workers,
      controlUrl: lab.controlUrl,
      delayMs: options.delayMs ?? 30_000,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
      restartCommand: checkoutRestartCommand(lab.controlUrl),
      pollIntervalMs: 1_000,
    }),
    ...extra,
  };
  const config = join(tmpdir(), `connect-roll-lab-${process.pid}-${Date.now()}.yml`);
  await writeFile(config, stringify({ clusters: { lab: cluster } }));
  return { config, cluster };
}

/** `connect-roll plan --config FILE lab TARGET --json` in this process: the exit code and the plan object. */
export async function runPlan(
  config: string,
  target: string,
): Promise<{ code: number; plan: PlanJson | null; stderr: string }> {
  const io = captureIo({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error" });
  const code = await runCli(
    { version: "0.0.0", commands: [planCommand] },
    ["plan", "--config", config, "lab", target, "--json"],
    io,
  );
  const line = io.out().trim().split("\n").at(-1) ?? "";
  return { code, plan: line.startsWith("{") ? (JSON.parse(line) as PlanJson) : null, stderr: io.err() };
}

/**
 * Runs `connect-roll run … --json` in this process; `onEvent` sees every event as it happens (to look at the lab's
 * ledger at a given moment).
 */
export async function runRollout(
  config: string,
  target: string,
  flags: readonly string[],
  onEvent: (event: RolloutEventLine) => void | Promise<void> = () => undefined,
  /** The run is interrupted (as by Ctrl-C) after this long: a worker that never comes back ends the run, not the suite. */
  timeoutMs = 1_200_000,
): Promise<{ code: number; events: RolloutEventLine[]; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = "";
  stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const events: RolloutEventLine[] = [];
  let buffer = "";
  const pending: Promise<void>[] = [];
  stdout.on("data", (c: Buffer) => {
    buffer += c.toString();
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf("\n");
      if (line.trim() === "") continue;
      const event = JSON.parse(line) as RolloutEventLine;
      events.push(event);
      pending.push(Promise.resolve(onEvent(event)));
    }
  });
  const code = await runCli(
    { version: "0.0.0", commands: [runCommand] },
    ["run", "--config", config, "lab", target, "--json", ...flags],
    {
      stdout,
      stderr,
      stdin: new PassThrough(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error" },
      signal: AbortSignal.timeout(timeoutMs),
    },
  );
  await Promise.all(pending);
  return { code, events, stderr: err };
}
