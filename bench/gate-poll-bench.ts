import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { createHttpClusterReader } from "../src/connect/http-cluster-reader.js";
import { hasHealthEndpoint } from "../src/core/protocol.js";
import { learnedFlow } from "../src/core/settle/assess-flow.js";
import { captureBaseline } from "../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../src/core/settle/evaluate-settle.js";
import { EMPTY_FLOW_TRACK, trackFlow } from "../src/core/settle/track-flow.js";
import { startSim } from "../src/sim/start-sim.js";
import { percentile } from "./metrics.js";

/**
 * One poll and one evaluation of a large cluster: 50 workers, 2,000 connectors, 10,000 tasks and 200
 * workers, 8,000 connectors, 40,000 tasks. Target: at most one cluster-wide status call plus `GET /`, the metrics and
 * (from 3.9) `/health` of each worker; evaluation under 50 ms, each with a new newest poll (as the gate sees them).
 */
export interface GatePollFigures {
  readonly workers: number;
  readonly connectors: number;
  readonly tasks: number;
  readonly version: string;
  readonly httpCallsPerPoll: number;
  readonly callBudget: number;
  readonly readMs: number;
  /** Bytes of every worker's metrics text in one poll (what the reader parses). */
  readonly scrapeBytes: number;
  /** Folding one poll into the data-flow track (`trackFlow`), median. */
  readonly foldMedianMs: number;
  readonly evaluateMedianMs: number;
  readonly evaluateMaxMs: number;
  readonly evaluations: number;
  readonly verdict: string;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
}

export interface GatePollSize {
  readonly workers: number;
  readonly connectors: number;
  readonly tasksPerConnector: number;
}

/** 200 tasks a worker: 12 workers (2,400 tasks), 50 (10,000) and 200 (40,000). */
export const GATE_POLL_SIZES: readonly GatePollSize[] = [
  { workers: 12, connectors: 480, tasksPerConnector: 5 },
  { workers: 50, connectors: 2000, tasksPerConnector: 5 },
  { workers: 200, connectors: 8000, tasksPerConnector: 5 },
];

export async function runGatePollBench(
  options: { readonly version?: string; readonly evaluations?: number; readonly size?: GatePollSize } = {},
): Promise<GatePollFigures> {
  const version = options.version ?? "3.7.1";
  const evaluations = options.evaluations ?? 25;
  const { workers, connectors, tasksPerConnector } = options.size ??
    GATE_POLL_SIZES[0] ?? {
      workers: 50,
      connectors: 2000,
      tasksPerConnector: 5,
    };
  const sim = await startSim({ virtualTime: true, workers, connectors, tasksPerConnector, version });
  let httpCalls = 0;
  const reader = createHttpClusterReader({
    cluster: "bench",
    workers: sim.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
    timeoutMs: 30_000,
    retries: 0,
    now: () => sim.clock.now(),
    onHttpAttempt: () => {
      httpCalls += 1;
    },
  });
  try {
    await sim.settle();
    const t0 = performance.now();
    const callsBefore = httpCalls;
    const snapshot = await reader.read();
    const readMs = performance.now() - t0;
    const httpCallsPerPoll = httpCalls - callsBefore;
    let scrapeBytes = 0;
    for (const w of sim.workers) scrapeBytes += (await (await fetch(w.metricsUrl)).arrayBuffer()).byteLength;
    // The data-flow track as the gate has it: two reads a window apart, so the baseline learns which tasks flow.
    await sim.clock.sleep(10_000);
    await sim.settle();
    const second = await reader.read();
    const foldTimes: number[] = [];
    const first = trackFlow(EMPTY_FLOW_TRACK, snapshot).track;
    let track = first;
    for (let i = 0; i < Math.max(5, Math.round(evaluations / 5)); i++) {
      const t = performance.now();
      track = trackFlow(first, second).track;
      foldTimes.push(performance.now() - t);
    }
    const flow = learnedFlow(track, second.readAt, 10_000);
    const captured = captureBaseline(snapshot, {
      step: 1,
      worker: "worker-1",
      targetVersion: version,
      stopIssuedAt: sim.clock.now(),
      delayMs: 300_000,
      flow,
    });
    if (captured.kind !== "captured") throw new Error(captured.message);
    // As in the gate: the kept polls were seen before, the newest is a new snapshot object every evaluation.
    const kept = [structuredClone(snapshot), structuredClone(snapshot)];
    const times: number[] = [];
    let verdict = "";
    for (let i = 0; i < evaluations; i++) {
      const polls = [...kept, structuredClone(snapshot)];
      const t = performance.now();
      const v = evaluateSettle({
        baseline: captured.baseline,
        polls,
        policy: { stallAfterMs: 120_000 },
        now: sim.clock.now() + 60_000,
        flow: track,
      });
      times.push(performance.now() - t);
      verdict = v.kind === "settled" ? "settled" : `${v.kind}: ${v.reasons.map((r) => r.code).join(", ")}`;
    }
    const mem = process.memoryUsage();
    return {
      workers,
      connectors,
      tasks: connectors * tasksPerConnector,
      version,
      httpCallsPerPoll,
      callBudget: 1 + callsPerWorker(version) * workers,
      readMs,
      scrapeBytes,
      foldMedianMs: percentile(foldTimes, 50),
      evaluateMedianMs: percentile(times, 50),
      evaluateMaxMs: Math.max(...times),
      evaluations,
      verdict,
      rssMiB: mem.rss / 2 ** 20,
      heapUsedMiB: mem.heapUsed / 2 ** 20,
    };
  } finally {
    await reader.close();
    await sim.close();
  }
}

/** `GET /` and the metrics scrape of every worker, and its `/health` from 3.9 on. */
function callsPerWorker(version: string): number {
  return hasHealthEndpoint(version) ? 3 : 2;
}

export function renderGatePoll(f: GatePollFigures): string {
  const ok = (b: boolean) => (b ? "ok" : "OVER TARGET");
  return [
    `gate poll: ${f.workers} workers, ${f.connectors} connectors, ${f.tasks} tasks, version ${f.version}`,
    `    HTTP calls per poll   ${f.httpCallsPerPoll} (target ≤ ${f.callBudget}: 1 cluster-wide + ${callsPerWorker(f.version)} per worker) ${ok(f.httpCallsPerPoll <= f.callBudget)}`,
    `    read time             ${f.readMs.toFixed(0)} ms (real time, loopback HTTP to the simulator)`,
    `    metrics per poll      ${(f.scrapeBytes / 2 ** 20).toFixed(1)} MiB of Prometheus text (one scrape per worker, per-task series included)`,
    `    data-flow fold        median ${f.foldMedianMs.toFixed(1)} ms per poll (trackFlow over every task)`,
    `    evaluateSettle        median ${f.evaluateMedianMs.toFixed(1)} ms, max ${f.evaluateMaxMs.toFixed(1)} ms over ${f.evaluations} (target < 50 ms) ${ok(f.evaluateMedianMs < 50)}`,
    `    verdict               ${f.verdict}`,
    `    memory                rss ${f.rssMiB.toFixed(0)} MiB, heap used ${f.heapUsedMiB.toFixed(0)} MiB (whole process, simulator included)`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const version = process.argv.includes("--v39") ? "3.9.1" : "3.7.1";
  const size = process.argv.includes("--200")
    ? GATE_POLL_SIZES[2]
    : process.argv.includes("--12")
      ? GATE_POLL_SIZES[0]
      : GATE_POLL_SIZES[1];
  runGatePollBench({ version, ...(size ? { size } : {}) }).then(
    (f) => console.log(renderGatePoll(f)),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
