import { formatDuration } from "../../src/core/format-duration.js";
import { plural } from "../../src/core/plural.js";
import { createPrng } from "../../src/sim/prng.js";
import { sendSlashCommand } from "../support/send-slash-command.js";
import type { ChaosClusterKind } from "./chaos-cluster.js";
import type { AppliedFault, Evidence, FaultKind, Verdict, WorkerEvent } from "./chaos-evidence.js";
import { applyFault, drawFaults, type PlannedFault } from "./chaos-faults.js";
import { checkInvariants } from "./chaos-invariants.js";
import { createClicker, rolloutThreads } from "./chaos-thread.js";
import { CHAOS_SLACK, startWorld, type World } from "./chaos-world.js";

export interface RoundOptions {
  /** The cluster rolled (default the simulator). */
  readonly cluster?: ChaosClusterKind;
  /** The lab's Kafka version. */
  readonly kafka?: string;
  readonly seed: number;
  readonly replicas: number;
  readonly workers?: number;
  readonly lockTtlMs?: number;
  /** Draw faults of these kinds only (a regression test's round). */
  readonly only?: readonly FaultKind[];
  /** How long the round's rollouts may take before the round counts as stuck (default: the cluster's). */
  readonly deadlineMs?: number;
}

export interface RoundResult {
  readonly seed: number;
  readonly planned: readonly PlannedFault[];
  readonly faults: readonly AppliedFault[];
  readonly verdicts: readonly Verdict[];
  readonly held: boolean;
  readonly rollouts: number;
  readonly restarts: number;
  readonly wallMs: number;
  /** When an invariant failed: the threads' texts and the replicas' last log lines, to see why. */
  readonly diagnostics: readonly string[];
}

/** The thread's word for a successful rollout ("✅ succeeded", "✅ sim rolling restart succeeded after 7s"), not any
 * "succeeded" (a note may say "before a renewal succeeded"). */
const SUCCESS_SAID = /✅[^\n]*\bsucceeded\b/;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the bot waits for a thread's parent before it gives the rollout up (its `parentWaitMs`), and a margin. */
const PARENT_WAIT_MS = 65_000;

/**
 * One chaos round: a world (chaos-world.ts), `/connect-roll <cluster> restart` typed in, prompts clicked, the drawn faults
 * applied at their moments, any rerun the thread proposes typed in, then the invariants over the evidence.
 */
export async function runRound(o: RoundOptions): Promise<RoundResult> {
  const started = Date.now();
  const kind = o.cluster ?? "sim";
  // The lab's JVMs are heavy on a small machine: three workers there, four in the simulator.
  const workers = o.workers ?? (kind === "lab" ? 3 : 4);
  const lockTtlMs = o.lockTtlMs ?? 2_000;
  const prng = createPrng(o.seed);
  const planned = drawFaults(prng, workers, lockTtlMs, o.only);
  const world = await startWorld({
    cluster: kind,
    ...(o.kafka === undefined ? {} : { kafka: o.kafka }),
    sentinel: planned.some((f) => f.kind === "sentinel-failover"),
    seed: o.seed,
    replicas: o.replicas,
    workers,
    lockTtlMs,
    tag: `r${o.seed}`,
  });
  try {
    const evidence = await drive(world, planned, prng, {
      workers,
      lockTtlMs,
      deadlineMs: o.deadlineMs ?? world.cluster.roundDeadlineMs,
    });
    const verdicts = checkInvariants(evidence);
    const held = verdicts.every((v) => v.held);
    return {
      seed: o.seed,
      planned,
      faults: evidence.faults,
      verdicts,
      held,
      rollouts: evidence.rollouts.length,
      restarts: evidence.restarts.length,
      wallMs: Date.now() - started,
      diagnostics: held ? [] : diagnose(world, evidence),
    };
  } finally {
    await world.close();
  }
}

async function drive(
  world: World,
  planned: readonly PlannedFault[],
  prng: ReturnType<typeof createPrng>,
  o: { workers: number; lockTtlMs: number; deadlineMs: number },
): Promise<Evidence> {
  const postedAt = new Map<string, number>();
  const workerEvents: WorkerEvent[] = [];
  const succeededWhileDown: { at: number; down: string[] }[] = [];
  const applied: AppliedFault[] = [];
  const crashStarts: number[] = [];
  const healing: Promise<void>[] = [];
  let over = false;
  const late: PlannedFault[] = [];
  const strike = (f: PlannedFault) => {
    // A moment that comes once the round has ended hits nothing: recorded as such, not applied to a closing world.
    if (over) return void late.push(f);
    if (f.kind === "worker-crash") crashStarts.push(Date.now());
    healing.push(
      applyFault(world, f).then(
        (a) => void applied.push(a),
        (err: unknown) =>
          void applied.push({
            kind: f.kind,
            target: null,
            at: Date.now(),
            until: Date.now(),
            skipped: `failed: ${String(err)}`,
          }),
      ),
    );
  };
  world.cluster.onWorkerEvent((e) => void workerEvents.push(e));
  const looks: Promise<void>[] = [];
  const said = new Set<string>();
  world.slack.onChange((change) => {
    if (change.kind !== "message-posted" && change.kind !== "message-updated") return;
    const m = change.message;
    if (change.kind === "message-posted") postedAt.set(m.ts, Date.now());
    const thread = m.threadTs ?? m.ts;
    if (said.has(thread) || !SUCCESS_SAID.test(m.text)) return;
    said.add(thread);
    // The cluster's tasks as soon as the thread says so (the simulator's at that very moment, the lab's a read later).
    const at = Date.now();
    const lastCall = world.recorder.restarts().at(-1)?.at ?? 0;
    looks.push(
      world.cluster.state().then((state) => {
        const down = state.tasks.filter((t) => t.state !== "RUNNING").map((t) => t.id);
        // A worker the campaign crashed after the last restart may have gone down after the gate passed: not the
        // bot's word.
        if (down.length > 0 && !crashStarts.some((c) => c >= lastCall)) succeededWhileDown.push({ at, down });
      }),
    );
  });
  let calls = 0;
  world.recorder.onRestart(() => {
    calls += 1;
    for (const f of planned)
      if (f.moment.kind === "after-restart" && f.moment.n === calls) setTimeout(() => strike(f), f.moment.ms);
  });
  const livePorts = () => world.replicas.live().map((r) => r.port);
  const click = createClicker(world.slack, livePorts, (n) => prng.int(n));
  const threads = () => rolloutThreads(world.slack, postedAt);
  const channelParents = () => world.slack.store.channelMessages(CHAOS_SLACK.channel).length;

  /**
   * Types a command on a live replica until a new thread shows it was taken (a refusal or a dead replica: again). A
   * command the bot answered with "Starting the rollout" is waited for as long as the bot waits for its parent (Slack may rate-limit it for seconds): typing it
   * again meanwhile would ask for a second rollout, which the bot rightly refuses in a thread of its own.
   */
  const type = async (text: string) => {
    for (let attempt = 0; attempt < 60; attempt += 1) {
      const before = channelParents();
      const ports = livePorts();
      const port = ports[prng.int(ports.length)];
      if (port !== undefined) {
        const answer = await sendSlashCommand({
          port,
          secret: CHAOS_SLACK.secret,
          text,
          user: CHAOS_SLACK.user,
          channel: CHAOS_SLACK.channel,
          team: CHAOS_SLACK.team,
          triggerId: `chaos-${Date.now()}-${attempt}`,
        }).catch(() => null);
        const starting = answer?.status === 200 && (await answer.text()).includes("Starting the rollout");
        const waits = starting ? PARENT_WAIT_MS / 100 : 30;
        for (let i = 0; i < waits && channelParents() === before; i += 1) await pause(100);
        if (channelParents() > before) return;
      }
      await pause(500);
    }
  };

  await type(`${world.cluster.name} restart`);
  for (const f of planned) if (f.moment.kind === "after-command") setTimeout(() => strike(f), f.moment.ms);
  const lastCommandMoment = Math.max(
    0,
    ...planned.map((f) => (f.moment.kind === "after-command" ? f.moment.ms : 0)),
  );
  const commandAt = Date.now();
  const reruns = new Set<string>();
  const deadline = Date.now() + o.deadlineMs;
  let timedOut: string | null = null;
  for (;;) {
    await click();
    const all = threads();
    for (const t of all)
      for (const lost of t.recordLost)
        if (lost.rerun !== null && !reruns.has(t.parentTs)) {
          reruns.add(t.parentTs);
          await type(lost.rerun.replace(/^\/connect-roll /, ""));
        }
    const latest = all.at(-1);
    const ended =
      all.length > 0 &&
      all.every((t) => t.reports.length + t.recordLost.length > 0) &&
      (latest?.reports.length ?? 0) > 0;
    if (ended && Date.now() - commandAt > lastCommandMoment) {
      const lock = await world
        .withStore((store) => store.readLock(world.cluster.name))
        .catch(() => "unreadable");
      const open = await world
        .withStore((store) => store.listJobs({ unfinishedOnly: true }))
        .catch(() => null);
      if (lock === null && open !== null && open.length === 0) break;
    }
    if (Date.now() > deadline) {
      timedOut = `the round did not end within ${formatDuration(o.deadlineMs)} (${plural(all.length, "thread")}, ${plural(world.recorder.restarts().length, "restart")})`;
      break;
    }
    await pause(100);
  }
  over = true;
  await Promise.all(healing);
  await Promise.all(looks);
  for (const r of world.replicas.replicas) if (r.stopped()) r.thaw();
  const never = planned.filter((f) => f.moment.kind === "after-restart" && f.moment.n > calls);
  const faults = [
    ...applied,
    ...never.map((f) => ({ kind: f.kind, target: null, at: 0, until: 0, skipped: "its moment never came" })),
    ...late.map((f) => ({
      kind: f.kind,
      target: null,
      at: 0,
      until: 0,
      skipped: "its moment came after the round",
    })),
  ];
  const unreadable = (e: unknown) => `unreadable (${e instanceof Error ? e.message : String(e)})`;
  const lock = await world
    .withStore((store) => store.readLock(world.cluster.name))
    .then((l) => (l === null ? null : `${l.owner} (job ${l.jobId})`), unreadable);
  const open = await world
    .withStore((store) => store.listJobs({ unfinishedOnly: true }))
    .then(
      (jobs) => jobs.map((j) => j.id),
      (e: unknown) => [unreadable(e)],
    );
  return {
    workers: world.cluster.workers.map((w) => w.name),
    ttlMs: o.lockTtlMs,
    restarts: world.recorder.restarts(),
    workerEvents,
    rollouts: threads(),
    faults,
    succeededWhileDown,
    leftovers: { lock, unfinishedJobs: open },
    timedOut,
  };
}

function diagnose(world: World, evidence: Evidence): string[] {
  const lines: string[] = [];
  for (const c of evidence.restarts)
    lines.push(`restart ${c.worker} by ${c.replica} at ${c.at} → ${c.status}`);
  for (const f of evidence.faults)
    lines.push(`fault ${f.kind} ${f.target ?? ""} ${f.at}..${f.until} ${f.skipped ?? ""}`);
  for (const parent of world.slack.store.channelMessages(CHAOS_SLACK.channel)) {
    lines.push(`thread ${parent.ts}: ${parent.text.slice(0, 300)}`);
    for (const r of world.slack.store.thread(CHAOS_SLACK.channel, parent.ts)?.replies ?? [])
      lines.push(`  ${r.broadcast ? "[broadcast] " : ""}${r.text.slice(0, 300)}`);
  }
  const failed = world.slack.calls().filter((c) => !c.ok);
  lines.push(`slack: ${world.slack.calls().length} calls, ${failed.length} failed`);
  for (const c of world.slack.calls())
    lines.push(
      `  ${c.at} ${c.method} ${c.status} ${c.error ?? ""} ${String(c.params.text ?? "").slice(0, 60)}`,
    );
  for (const r of world.replicas.replicas)
    lines.push(
      `${r.id} (${r.up() ? "up" : "down"}): ${r
        .stderr()
        .split("\n")
        .slice(-Number(process.env.CHAOS_LOG_LINES ?? 15))
        .join("\n    ")}`,
    );
  return lines;
}
