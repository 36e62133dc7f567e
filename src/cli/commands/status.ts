import { formatDuration } from "../../core/format-duration.js";
import { isFinished, type JobRecord } from "../../jobs/store/job-record.js";
import type { LockHolder } from "../../jobs/store/job-store.js";
import { rolloutStateOf } from "../../jobs/store/rollout-record.js";
import type { OperatorCommandStore } from "../../jobs/store/store-roles.js";
import { type ChartTarget, parseChartFlag, writeChartFile } from "../chart-file.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { oneLine } from "../one-line.js";
import { openOperatorStore, unknownClusterMessage } from "../operator-store.js";

interface ClusterStatus {
  readonly cluster: string;
  /** The unfinished rollout, if any. */
  readonly job: {
    readonly id: string;
    readonly status: string;
    readonly target: string | null;
    readonly step: number | null;
    readonly steps: number | null;
    readonly requestedBy: string;
    readonly since: number;
    readonly owner: string | null;
    readonly pendingApproval: string | null;
    readonly thread: { readonly channel: string; readonly ts: string } | null;
  } | null;
  readonly lock: LockHolder | null;
  /** What an operator should know: "interrupted (no replica holds the lock)", "lock without a job". */
  readonly note: string | null;
}

async function readClusterStatus(
  store: OperatorCommandStore,
  clusters: readonly string[],
): Promise<ClusterStatus[]> {
  const jobs = await store.listJobs({ unfinishedOnly: true });
  const out: ClusterStatus[] = [];
  for (const cluster of clusters) {
    const lock = await store.readLock(cluster);
    const job = jobs.filter((j) => j.cluster === cluster).at(-1) ?? null;
    if (job === null && lock === null) continue;
    const note =
      job === null
        ? `locked by job ${lock?.jobId} that has no unfinished record: if no replica renews it, free it with connect-roll unlock ${cluster} --reason …`
        : lock === null || lock.jobId !== job.id
          ? "interrupted: no replica holds its lock; a bot replica (or connect-roll run of the same target) resumes it"
          : null;
    out.push({ cluster, job: job === null ? null : jobView(job), lock, note });
  }
  return out;
}

function jobView(job: JobRecord): NonNullable<ClusterStatus["job"]> {
  let target: string | null = null;
  let step: number | null = null;
  let steps: number | null = null;
  try {
    const state = rolloutStateOf(job);
    target = state.target.argument;
    steps = state.steps.length;
    step = "step" in state.phase && typeof state.phase.step === "number" ? state.phase.step : null;
  } catch {
    // a record from another schema version: show what the job record itself says
  }
  return {
    id: job.id,
    status: job.status,
    target,
    step,
    steps,
    requestedBy: job.requestedBy,
    since: job.createdAt,
    owner: job.owner,
    pendingApproval: job.pendingApproval?.kind ?? null,
    thread: job.thread,
  };
}

function line(s: ClusterStatus, now: number): string {
  const parts = [s.cluster];
  if (s.job) {
    const j = s.job;
    parts.push(
      `${j.status}${j.pendingApproval ? ` (${j.pendingApproval})` : ""}${j.step !== null && j.steps ? ` · step ${j.step}/${j.steps}` : ""}`,
      `target ${j.target ?? "?"}`,
      `job ${j.id} by ${j.requestedBy} since ${new Date(j.since).toISOString()}`,
    );
  }
  if (s.lock) {
    const left = s.lock.expiresAt - now;
    parts.push(
      `lock held by ${s.lock.owner}${s.job?.id === s.lock.jobId ? "" : ` for job ${s.lock.jobId}`} (lease ${left > 0 ? `${formatDuration(left)} left` : "expired"})`,
    );
  }
  if (s.note) parts.push(s.note);
  return parts.join(" · ");
}

export const statusCommand: CliCommand = {
  name: "status",
  summary: "running rollouts and cluster locks, from the bot's Redis (no Slack needed)",
  help: `Usage: connect-roll status [--config FILE] [CLUSTER] [--json] [--chart FILE.svg|FILE.png]

Shows, for every configured cluster (or CLUSTER), the unfinished rollout (status, step, target, who, since when,
pending approval) and the cluster lock (holder and lease), read from the same Redis as the bot and \`run\`
(REDIS_URL or redis.url; CONNECT_ROLL_REDIS_PREFIX). Interrupted rollouts and locks without a job are pointed out.

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  --json          one JSON object: { "clusters": [ … ] }
  --chart FILE    with CLUSTER: also write the timeline chart of its running rollout, or of its last one, to FILE
                  (.svg or .png)
  -h, --help      show this help

Exit codes: 0 shown (also when nothing runs); 1 Redis or the config cannot be read, or --chart found no rollout or
could not write; 2 usage error.`,
  options: {
    config: { type: "string", default: "connect-roll.yml" },
    json: { type: "boolean", default: false },
    chart: { type: "string" },
  },
  positionals: { min: 0, max: 1, names: ["[CLUSTER]"] },
  async run(values, positionals, io) {
    const chart = parseChartFlag(values.chart);
    if (chart.kind === "usage") return usage(io, chart.message);
    if (chart.chart !== null && positionals[0] === undefined) return usage(io, "--chart needs a CLUSTER");
    const opened = await openOperatorStore(String(values.config), io);
    if (opened.kind === "error") {
      io.stderr.write(`connect-roll status: ${opened.message}\n`);
      return ExitCode.Failed;
    }
    const { config, store } = opened.value;
    try {
      const cluster = positionals[0];
      if (cluster !== undefined) {
        const unknown = unknownClusterMessage(config, cluster);
        if (unknown) {
          io.stderr.write(`connect-roll status: ${unknown}\n`);
          return ExitCode.Usage;
        }
      }
      const statuses = await readClusterStatus(
        store,
        cluster === undefined ? Object.keys(config.clusters) : [cluster],
      );
      if (values.json === true) io.stdout.write(`${JSON.stringify({ clusters: statuses })}\n`);
      else if (statuses.length === 0)
        io.stdout.write(`no rollout is running and no cluster is locked${cluster ? ` (${cluster})` : ""}\n`);
      else for (const s of statuses) io.stdout.write(`${line(s, Date.now())}\n`);
      if (chart.chart !== null && cluster !== undefined)
        return await writeClusterChart(store, cluster, chart.chart, io);
      return ExitCode.Ok;
    } finally {
      await opened.value.close();
    }
  },
};

function usage(io: CliIo, message: string): number {
  io.stderr.write(`connect-roll status: ${message}\n`);
  return ExitCode.Usage;
}

/** The chart of the cluster's unfinished rollout, else of its newest one. */
async function writeClusterChart(
  store: OperatorCommandStore,
  cluster: string,
  chart: ChartTarget,
  io: CliIo,
): Promise<number> {
  const jobs = await store.listJobs({ cluster });
  const newest = [...jobs].sort((a, b) => a.createdAt - b.createdAt);
  const job = newest.filter((j) => !isFinished(j.status)).at(-1) ?? newest.at(-1);
  if (job === undefined) {
    io.stderr.write(`connect-roll status: no rollout of ${cluster} to chart\n`);
    return ExitCode.Failed;
  }
  let state: ReturnType<typeof rolloutStateOf>;
  try {
    state = rolloutStateOf(job);
  } catch (e) {
    io.stderr.write(
      `connect-roll status: job ${job.id} cannot be charted: ${oneLine((e as Error).message)}\n`,
    );
    return ExitCode.Failed;
  }
  return (await writeChartFile(io, "status", chart, state, { now: Date.now() }))
    ? ExitCode.Ok
    : ExitCode.Failed;
}
