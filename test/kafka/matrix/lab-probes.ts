import { readFile } from "node:fs/promises";
import { parsePrometheusText, WORKER_METRIC_NAMES } from "../../../src/connect/prometheus.js";
import type { RunningLab } from "../../../src/lab/start-lab.js";
import { type LabState, labState, until } from "../lab-support.js";

/** How long the generation must stay the same before a rollout starts. */
const QUIET_MS = 5_000;

/** What the matrix reads off a running lab from the outside of Kafka: memory, processes, timings, metrics. */
export async function rssMiB(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every JVM pid of the lab now (broker and workers). */
export function labPids(lab: RunningLab): number[] {
  return [lab.brokerPid, ...lab.cluster.workers.flatMap((w) => (w.jvm ? [w.jvm.pid] : []))];
}

export interface RestartTiming {
  readonly worker: string;
  /** From the lab starting to stop it. */
  readonly restUpMs: number | null;
  readonly joinedMs: number | null;
}

/**
 * Watches the lab's workers (every 100 ms) for a restart: when the lab starts stopping one, when its new JVM answers
 * REST and when it logs its join line. Also collects every JVM pid it sees, so none can outlive the lab unseen.
 */
export function watchRestarts(lab: RunningLab, pids: Set<number>): { stop(): RestartTiming[] } {
  const seen = new Map<
    string,
    { stopAt: number; restUpAt: number | null; joinedAt: number | null; pid: number | null }
  >();
  const timer = setInterval(() => {
    const now = Date.now();
    for (const w of lab.cluster.workers) {
      if (w.jvm) pids.add(w.jvm.pid);
      let s = seen.get(w.spec.name);
      if (s === undefined && w.stopping) {
        s = { stopAt: now, restUpAt: null, joinedAt: null, pid: w.jvm?.pid ?? null };
        seen.set(w.spec.name, s);
      }
      if (s === undefined || w.jvm === null || w.jvm.pid === s.pid) continue;
      if (s.restUpAt === null && w.state === "running") s.restUpAt = now;
      if (s.joinedAt === null && w.lastJoin !== null) s.joinedAt = now;
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return [...seen].map(([worker, s]) => ({
        worker,
        restUpMs: s.restUpAt === null ? null : s.restUpAt - s.stopAt,
        joinedMs: s.joinedAt === null ? null : s.joinedAt - s.stopAt,
      }));
    },
  };
}

/** Per-task source series the shipped rules produce, each with labels `connector` and `task`. */
export const SOURCE_TASK_SERIES = [
  "kafka_connect_source_task_source_record_write_total",
  "kafka_connect_source_task_source_record_poll_total",
  "kafka_connect_task_error_total_record_failures",
  "kafka_connect_task_error_deadletterqueue_produce_failures",
] as const;

/**
 * Problems with a worker's metrics: a series the reader uses that is missing, or a per-task series missing for a
 * task the worker runs ("conn-01/0").
 */
export async function metricProblems(
  metricsUrl: string,
  worker: string,
  tasks: readonly string[],
): Promise<string[]> {
  const samples = await scrape(metricsUrl);
  const names = new Set(samples.map((s) => s.name));
  const problems = Object.values(WORKER_METRIC_NAMES)
    .filter((n) => !names.has(n))
    .map((n) => `${worker}: no ${n}`);
  for (const task of tasks) {
    const [connector, id] = task.split("/");
    for (const series of SOURCE_TASK_SERIES)
      if (!samples.some((s) => s.name === series && s.labels.connector === connector && s.labels.task === id))
        problems.push(`${worker}: no ${series}{connector="${connector}",task="${id}"}`);
  }
  return problems;
}

/**
 * The lab once it is balanced and quiet: every task RUNNING, nothing held, every worker with its share of the tasks,
 * and no new generation for 5 s. A leader bounce leaves the returning worker empty until a load-balancing revocation
 * round a moment later; a rollout planned in between would restart that worker as one without tasks and see the
 * revocations on its return as moves.
 */
export async function balanced(lab: RunningLab): Promise<LabState> {
  let generation = -1;
  let since = Date.now();
  return until("the lab balanced and quiet", async () => {
    const s = await labState(lab);
    if (s.generation !== generation) {
      generation = s.generation;
      since = Date.now();
    }
    const share = Math.floor(s.tasks.length / s.workers.length);
    const ok =
      s.tasks.every((t) => t.state === "RUNNING") &&
      s.heldTasks.length === 0 &&
      s.delayDeadline === null &&
      s.workers.every((w) => w.state === "running" && w.tasks.length >= share);
    return ok && Date.now() - since >= QUIET_MS ? s : null;
  });
}

/** Per-task sink series (labels `connector`, `task`) and the sink consumer's per-partition lag. */
export const SINK_TASK_SERIES = [
  "kafka_connect_sink_task_sink_record_read_total",
  "kafka_connect_sink_task_sink_record_send_total",
] as const;
export const SINK_LAG_SERIES = "kafka_consumer_fetch_manager_records_lag";
/** The sink consumer's fetches (label `clientid`): they tell a sink with nothing to read from a stuck one. */
export const SINK_FETCH_SERIES = "kafka_consumer_fetch_manager_fetch_total";

/** Problems with the sink series of the sink tasks ("sink-01/0") a worker runs. */
export async function sinkMetricProblems(
  metricsUrl: string,
  worker: string,
  tasks: readonly string[],
): Promise<string[]> {
  const samples = await scrape(metricsUrl);
  const problems: string[] = [];
  for (const task of tasks) {
    const [connector, id] = task.split("/");
    for (const series of SINK_TASK_SERIES)
      if (!samples.some((s) => s.name === series && s.labels.connector === connector && s.labels.task === id))
        problems.push(`${worker}: no ${series}{connector="${connector}",task="${id}"}`);
    const client = `connector-consumer-${connector}-${id}`;
    const lag = samples.filter((s) => s.name === SINK_LAG_SERIES && s.labels.clientid === client);
    if (!lag.some((s) => s.labels.topic !== undefined && s.labels.partition !== undefined))
      problems.push(`${worker}: no ${SINK_LAG_SERIES}{clientid="${client}",topic,partition}`);
    if (!samples.some((s) => s.name === SINK_FETCH_SERIES && s.labels.clientid === client))
      problems.push(`${worker}: no ${SINK_FETCH_SERIES}{clientid="${client}"}`);
  }
  return problems;
}

/** Closes the lab and checks that no JVM it ever ran (`pids`) is left; on any failure, where its logs are. */
export async function closeLab(lab: RunningLab, pids: Set<number>, failures: string[]): Promise<void> {
  for (const pid of labPids(lab)) pids.add(pid);
  await lab.close();
  const left = [...pids].filter(alive);
  if (left.length > 0) failures.push(`JVMs outlived the lab: ${left.join(", ")}`);
  if (failures.length > 0) failures.push(`logs in ${lab.dir}`);
}

async function scrape(metricsUrl: string) {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) })).text();
  return parsePrometheusText(text).samples;
}
