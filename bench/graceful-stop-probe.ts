import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createHttpClusterReader } from "../src/connect/http-cluster-reader.js";
import { captureBaseline } from "../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../src/core/settle/evaluate-settle.js";
import { startLab } from "../src/lab/start-lab.js";
import type { SimState } from "../src/sim/sim-types.js";

/**
 * How often a graceful stop leaves a stale RUNNING status on a real worker, by how soon after its tasks started the
 * stop came, and what the gate makes of such a task. A 4-worker lab; each round stops one follower gracefully a set
 * time after its tasks came back (the scheduled delay hands them back at the deadline), reads the statuses once the
 * worker is down, and, when some of its tasks still say RUNNING, evaluates the gate on that read and again once the
 * worker has rejoined (its tasks still held): the gate must never count them as running.
 *   npx tsx bench/graceful-stop-probe.ts [--kafka 3.9.1] [--rounds 12]
 */
const OFFSETS_MS = [0, 500, 1000, 1500, 2000, 3000];

interface Round {
  readonly offsetMs: number;
  readonly sinceStartMs: number;
  readonly tasks: number;
  readonly stale: number;
  readonly gateWhileAway: string;
  readonly gateAfterRejoin: string;
}

/** Seconds from the last task start to each "Kafka Connect stopping" in a worker's log (the worker's own clock). */
async function stopsAfterStart(dir: string, worker: string): Promise<string> {
  const text = await readFile(join(dir, worker, "worker.log"), "utf8");
  const at = (line: string) => {
    const m = /^\[\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d),(\d{3})\]/.exec(line);
    return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000 : null;
  };
  let started: number | null = null;
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const t = at(line);
    if (t === null) continue;
    if (line.includes("Source task finished initialization and start")) started = t;
    else if (line.includes("Kafka Connect stopping") && started !== null) out.push((t - started).toFixed(2));
  }
  return out.join(" ");
}

function argOf(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  const kafka = argOf("--kafka", "3.9.1");
  const rounds = Number(argOf("--rounds", "12"));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds takes a whole number above 0");
  const delayMs = 30_000;
  const lab = await startLab({ kafka, workers: 4, connectors: 4, tasksPerConnector: 2, delayMs });
  const control = async (path: string) => {
    const res = await fetch(`${lab.controlUrl}${path}`, {
      method: "POST",
      signal: AbortSignal.timeout(120_000),
    });
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
  };
  const state = async (): Promise<SimState> =>
    (await (
      await fetch(`${lab.controlUrl}/sim/state`, { signal: AbortSignal.timeout(60_000) })
    ).json()) as SimState;
  const until = async (what: string, ok: (s: SimState) => boolean, ms = 120_000): Promise<SimState> => {
    const end = Date.now() + ms;
    for (;;) {
      const s = await state();
      if (ok(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const reader = createHttpClusterReader({
    cluster: "probe",
    workers: lab.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
    timeoutMs: 10_000,
    retries: 0,
    now: Date.now,
  });
  const out: Round[] = [];
  let victimName: string | null = null;
  try {
    const steady = (s: SimState) =>
      s.heldTasks.length === 0 &&
      s.workers.every((w) => w.state === "running") &&
      s.tasks.every((t) => t.state === "RUNNING");
    for (let i = 0; i < rounds; i++) {
      // Steady twice 5 s apart with the same assignment: not a lull between the rebalances of its creation.
      let s0 = await until("the cluster steady", steady, 180_000);
      for (;;) {
        const at = Date.now();
        await until("a quiet moment", () => Date.now() >= at + 5_000);
        const again = await until("the cluster steady", steady, 180_000);
        const same =
          JSON.stringify(again.workers.map((w) => w.tasks)) ===
          JSON.stringify(s0.workers.map((w) => w.tasks));
        s0 = again;
        if (same) break;
      }
      const victim = s0.workers.find((w) => w.name !== s0.leader && w.tasks.length > 0);
      if (!victim) throw new Error("no follower with tasks");
      victimName = victim.name;
      const mine = (s: SimState) => s.tasks.filter((t) => victim.tasks.includes(t.id));
      // Stop and start the victim: the delay hands its tasks back to it at the deadline, which is "just started".
      await control(`/sim/workers/${victim.name}/stop?mode=graceful`);
      await control(`/sim/workers/${victim.name}/start`);
      await until("its tasks back on it", (s) =>
        mine(s).every(
          (t) => t.state === "RUNNING" && t.workerId === victim.workerId && s.heldTasks.length === 0,
        ),
      );
      const startedAt = Date.now();
      const offsetMs = OFFSETS_MS[i % OFFSETS_MS.length] ?? 0;
      if (offsetMs > 0) await new Promise((r) => setTimeout(r, offsetMs));
      const before = await reader.read();
      const stopIssuedAt = Date.now();
      await control(`/sim/workers/${victim.name}/stop?mode=graceful`);
      const away = await state();
      const stale = mine(away).filter((t) => t.state === "RUNNING" && t.workerId === victim.workerId).length;
      let gateWhileAway = "-";
      let gateAfterRejoin = "-";
      const captured = captureBaseline(before, {
        step: 1,
        worker: victim.name,
        targetVersion: kafka,
        stopIssuedAt,
        delayMs,
      });
      if (captured.kind !== "captured") throw new Error(captured.message);
      const verdict = async () => {
        const poll = await reader.read();
        const v = evaluateSettle({ baseline: captured.baseline, polls: [poll], policy: {}, now: Date.now() });
        return v.kind === "settled" ? "SETTLED" : `${v.kind}: ${v.reasons.map((r) => r.code).join(",")}`;
      };
      if (stale > 0) gateWhileAway = await verdict();
      await control(`/sim/workers/${victim.name}/start`);
      if (stale > 0) {
        // Back in the group, its tasks still held by the delay: the statuses may still say RUNNING.
        await until(
          "it has rejoined",
          (s) => s.workers.find((w) => w.name === victim.name)?.state === "running",
        );
        const now = await state();
        const stillStale = mine(now).filter(
          (t) => t.state === "RUNNING" && t.workerId === victim.workerId,
        ).length;
        gateAfterRejoin =
          now.heldTasks.length > 0
            ? `${stillStale} still RUNNING; ${await verdict()}`
            : "(delay already over)";
      }
      const row = {
        offsetMs,
        sinceStartMs: stopIssuedAt - startedAt,
        tasks: victim.tasks.length,
        stale,
        gateWhileAway,
        gateAfterRejoin,
      };
      out.push(row);
      console.log(JSON.stringify(row));
    }
    if (victimName !== null)
      console.log(`from ${victimName}'s log: ${await stopsAfterStart(lab.dir, victimName)}`);
  } finally {
    await reader.close();
    await lab.close();
  }
  const hit = out.filter((r) => r.stale > 0);
  console.log(
    `Kafka ${kafka}: ${hit.length} of ${out.length} graceful stops left a stale RUNNING ` +
      `(${hit.reduce((a, r) => a + r.stale, 0)} of ${out.reduce((a, r) => a + r.tasks, 0)} tasks); ` +
      `the gate settled on one ${hit.filter((r) => r.gateWhileAway === "SETTLED" || r.gateAfterRejoin.endsWith("SETTLED")).length} times`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  });
}
