import { labDriverOf, startSimDriver } from "../../../bench/fidelity/cluster-driver.js";
import { rowsFor, runOn, shapeFor } from "../../../bench/fidelity/run-fidelity.js";
import { SCENARIOS } from "../../../bench/fidelity/scenarios.js";
import { createHttpClusterReader } from "../../../src/connect/http-cluster-reader.js";
import type { LabOptions } from "../../../src/lab/lab-options.js";
import { type RunningLab, startLab } from "../../../src/lab/start-lab.js";
import {
  type LabState,
  labState,
  type RolloutEventLine,
  runPlan,
  runRollout,
  until,
  writeLabConfig,
} from "../lab-support.js";
import {
  balanced,
  closeLab,
  labPids,
  metricProblems,
  rssMiB,
  sinkMetricProblems,
  watchRestarts,
} from "./lab-probes.js";
import { brokerFor } from "./matrix-plan.js";
import type { VersionResult } from "./matrix-report.js";

/**
 * The fidelity scenarios every version runs: held tasks and their deadline, a crash's stale statuses, a leader bounce.
 * The leader bounce runs last: after it the simulator leaves the returning old leader without tasks while Kafka
 * revokes some for it at once, which would change what the next scenario starts from.
 */
const SCENARIO_NAMES = ["rest-and-metrics", "follower-bounce", "crash-vs-graceful", "leader-bounce"];
/** How far a task's real data-flow gap may exceed the plan's per-task downtime for its worker's step. */
export const GAP_TOLERANCE_MS = 3_000;

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";

/**
 * One version of the matrix on one lab: it comes up, `plan` and the reader read it, the shipped exporter rules give
 * every series, the fidelity scenarios agree with the simulator, and `connect-roll run … restart` rolls it.
 */
export async function runVersion(version: string, progress: (line: string) => void): Promise<VersionResult> {
  const shape = shapeFor("base", version);
  const broker = brokerFor(version) ?? version;
  const options: LabOptions = {
    kafka: version,
    brokerVersion: broker,
    workers: shape.workers,
    connectors: shape.connectors,
    tasksPerConnector: shape.tasksPerConnector,
    delayMs: shape.delayMs,
    sessionTimeoutMs: shape.sessionTimeoutMs,
  };
  const failures: string[] = [];
  const notes: string[] = [];
  const timings = {
    labUpMs: null as number | null,
    restUpMs: null as number | null,
    joinedMs: null as number | null,
    tasksBackMs: null as number | null,
    rollMs: null as number | null,
  };
  const rss = { brokerMiB: null as number | null, workerMiB: null as number | null };
  const fidelity = { agree: 0, total: 0 };
  const result = (): VersionResult => ({
    version,
    broker,
    pass: failures.length === 0,
    failures,
    timings,
    rss,
    notes,
    fidelity,
  });
  const started = Date.now();
  let lab: RunningLab;
  try {
    lab = await startLab(options);
  } catch (e) {
    failures.push(errorText(e));
    return result();
  }
  timings.labUpMs = Date.now() - started;
  const pids = new Set(labPids(lab));
  const sampleRss = async () => {
    const b = await rssMiB(lab.brokerPid);
    if (b !== null) rss.brokerMiB = Math.max(rss.brokerMiB ?? 0, b);
    for (const w of lab.cluster.workers) {
      const r = w.jvm ? await rssMiB(w.jvm.pid) : null;
      if (r !== null) rss.workerMiB = Math.max(rss.workerMiB ?? 0, r);
    }
  };
  try {
    await sampleRss();
    progress(`${version}: lab up in ${timings.labUpMs} ms; plan and the reader`);
    await readChecks(lab, options, version, failures, notes);
    progress(`${version}: fidelity scenarios (${SCENARIO_NAMES.join(", ")})`);
    const scenarios = SCENARIO_NAMES.flatMap((n) => SCENARIOS.filter((s) => s.name === n));
    const sim = await runOn(() => startSimDriver(shape), scenarios, shape);
    const watcher = watchRestarts(lab, pids);
    const real = await runOn(async () => labDriverOf(lab), scenarios, shape);
    const first = watcher.stop()[0];
    timings.restUpMs = first?.restUpMs ?? null;
    timings.joinedMs = first?.joinedMs ?? null;
    const rows = rowsFor(version, scenarios, sim, real);
    fidelity.total = rows.length;
    fidelity.agree = rows.filter((r) => r.verdict !== "differs").length;
    for (const r of rows.filter((x) => x.verdict === "differs"))
      failures.push(
        `fidelity ${r.scenario}: ${r.observation}: simulator ${String(r.sim)}, real ${String(r.real)}`,
      );
    const back = rows.find((r) => r.scenario === "follower-bounce" && r.observation.startsWith("tasks back"));
    timings.tasksBackMs = typeof back?.real === "number" ? back.real : null;
    progress(`${version}: a sink connector and its series`);
    await addSink(lab, shape.tasksPerConnector, failures);
    await sampleRss();
    progress(`${version}: connect-roll run lab restart`);
    timings.rollMs = await rollingRestart(lab, options, failures, pids);
    await sampleRss();
  } catch (e) {
    failures.push(errorText(e));
  } finally {
    await closeLab(lab, pids, failures);
  }
  return result();
}

/**
 * The lab's verifiable sink (reading the source topics), once the fidelity scenarios are done (the simulator's shape
 * has no sink): its tasks RUNNING, then every sink series on the workers that run them. The rolling restart after it
 * rolls sources and sink together.
 */
async function addSink(lab: RunningLab, tasks: number, failures: string[]): Promise<void> {
  const created = await lab.cluster.createConnector("sink-01", tasks, "sink");
  if (created.kind !== "ok") {
    failures.push(`sink: ${created.message}`);
    return;
  }
  const running = await until("the sink's tasks RUNNING", async () => {
    const s = await labState(lab);
    const own = s.tasks.filter((t) => t.id.startsWith("sink-01/"));
    return own.length === tasks && own.every((t) => t.state === "RUNNING") && s.heldTasks.length === 0
      ? s
      : null;
  });
  let problems: string[] = [];
  try {
    // A consumer's lag series appears once it has fetched from its partitions.
    await until(
      "every sink series",
      async () => {
        problems = [];
        for (const w of running.workers) {
          const endpoint = lab.workers.find((x) => x.name === w.name);
          const sinkTasks = w.tasks.filter((t) => t.startsWith("sink-01/"));
          if (endpoint && sinkTasks.length > 0)
            problems.push(...(await sinkMetricProblems(endpoint.metricsUrl, w.name, sinkTasks)));
        }
        return problems.length === 0;
      },
      60_000,
    );
  } catch {
    failures.push(...problems);
  }
}

/** `plan` on the lab's written config and the reader directly: leader, protocol, versions, every metric series. */
async function readChecks(
  lab: RunningLab,
  options: LabOptions,
  version: string,
  failures: string[],
  notes: string[],
): Promise<void> {
  const state = await labState(lab);
  const { config } = await writeLabConfig(lab, options);
  const planned = await runPlan(config, "restart");
  if (planned.code !== 0 || planned.plan === null)
    failures.push(`plan exited ${planned.code}: ${planned.stderr.trim()}`);
  else {
    if (planned.plan.leader !== state.leader)
      failures.push(`plan's leader ${planned.plan.leader} is not the lab's ${state.leader}`);
    if (planned.plan.steps.at(-1)?.worker !== state.leader) failures.push("plan: the leader is not last");
    const blocking = planned.plan.findings.filter((f) => f.severity === "block");
    if (blocking.length > 0) failures.push(`plan blocks: ${blocking.map((f) => f.code).join(", ")}`);
  }
  const reader = createHttpClusterReader({
    cluster: "lab",
    workers: lab.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
    timeoutMs: 10_000,
    retries: 2,
    now: Date.now,
  });
  try {
    const snapshot = await reader.read();
    for (const w of snapshot.workers) {
      if (w.version !== version) failures.push(`${w.name} reports version ${w.version}`);
      if (w.metrics?.protocol !== "sessioned")
        failures.push(`${w.name}: protocol ${w.metrics?.protocol ?? "unread"}`);
      const leaderName = state.workers.find((x) => x.name === state.leader)?.url;
      if (leaderName === undefined || w.metrics?.leaderUrl?.replace(/\/$/, "") !== leaderName)
        failures.push(`${w.name}: leader-name ${w.metrics?.leaderUrl ?? "unread"}`);
      if (w.metrics?.startTimeMs === null) failures.push(`${w.name}: no start time`);
    }
    // `/health` exists from 3.9 (KIP-1017): the reader sees "healthy" there and "unsupported" (404) before.
    const expected = /^(2\.|3\.[0-8]\.)/.test(version) ? "unsupported" : "healthy";
    for (const w of snapshot.workers)
      if (w.health !== expected) failures.push(`${w.name}: health ${w.health}, expected ${expected}`);
  } finally {
    await reader.close();
  }
  for (const w of state.workers) {
    const endpoint = lab.workers.find((x) => x.name === w.name);
    if (endpoint) failures.push(...(await metricProblems(endpoint.metricsUrl, w.name, w.tasks)));
  }
  const root = (await (await fetch(`${lab.workers[0]?.url}/`)).json()) as Record<string, unknown>;
  const health = await fetch(`${lab.workers[0]?.url}/health`);
  notes.push(`GET / keys ${Object.keys(root).sort().join(",")}; /health ${health.status}`);
}

/** `connect-roll run lab restart --yes`: once per worker, the leader last, no moves or interruptions before it. */
async function rollingRestart(
  lab: RunningLab,
  options: LabOptions,
  failures: string[],
  pids: Set<number>,
): Promise<number> {
  const { config } = await writeLabConfig(lab, options);
  const before = await balanced(lab);
  lab.cluster.resetLedger();
  let atLeader: LabState | null = null;
  const started = Date.now();
  const watcher = watchRestarts(lab, pids);
  const { code, events, stderr } = await runRollout(
    config,
    "restart",
    ["--yes"],
    async (e: RolloutEventLine) => {
      if (e.kind === "step-started" && e.worker === before.leader) atLeader = await labState(lab);
    },
  );
  watcher.stop();
  const rollMs = Date.now() - started;
  const summary = events.at(-1);
  if (code !== 0 || summary?.kind !== "summary" || summary.result !== "succeeded")
    failures.push(
      `run restart: ${String(summary?.result ?? code)} ${stderr.trim().split("\n").at(-1) ?? ""}`,
    );
  const plan = events.find((e) => e.kind === "rollout-planned")?.plan;
  if (plan?.steps.at(-1)?.worker !== before.leader) failures.push("run restart: the leader was not last");
  const mid = atLeader as LabState | null;
  if (mid === null) failures.push("run restart: the leader's step never started");
  else if (mid.counters.taskMoves !== 0 || mid.counters.taskInterruptions !== 0)
    failures.push(
      `run restart: follower steps moved ${mid.counters.taskMoves} and interrupted ${mid.counters.taskInterruptions} tasks`,
    );
  const after = await labState(lab);
  for (const w of after.workers) {
    const n = (after.counters.restarts[w.name] ?? 0) - (before.counters.restarts[w.name] ?? 0);
    if (n !== 1) failures.push(`run restart: ${w.name} restarted ${n} times`);
  }
  if (!after.tasks.every((t) => t.state === "RUNNING"))
    failures.push("run restart: not every task RUNNING after");
  const predicted = new Map((plan?.steps ?? []).map((s) => [s.worker, s.predictedDowntimeMs]));
  for (const w of before.workers)
    for (const t of w.tasks) {
      const gap = after.dataFlow.perTask[t] ?? 0;
      const limit = (predicted.get(w.name) ?? 0) + GAP_TOLERANCE_MS;
      if (gap > limit)
        failures.push(`run restart: ${t} (on ${w.name}) was down ${gap} ms, predicted ≤ ${limit}`);
    }
  return rollMs;
}
