import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { createHttpClusterReader } from "../src/connect/http-cluster-reader.js";
import { captureBaseline } from "../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../src/core/settle/evaluate-settle.js";
import { startSim } from "../src/sim/start-sim.js";
import { percentile } from "./metrics.js";

/**
 * One poll and one evaluation of a large cluster: 50 workers, 2,000 connectors, 10,000 tasks (issue #4) and 200
 * workers, 8,000 connectors, 40,000 tasks (issue 17). Target: at most one cluster-wide status call plus two calls per
 * worker; evaluation under 50 ms, each with a new newest poll (as the gate sees them).
 */
export interface GatePollFigures {
  readonly workers: number;
  readonly connectors: number;
  readonly tasks: number;
  readonly version: string;
  readonly httpCallsPerPoll: number;
  readonly callBudget: number;
  readonly readMs: number;
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

/** Issue #4's cluster and issue 17's: 200 workers, 8,000 connectors, 40,000 tasks. */
export const GATE_POLL_SIZES: readonly GatePollSize[] = [
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
    const captured = captureBaseline(snapshot, {
      step: 1,
      worker: "worker-1",
      targetVersion: version,
      stopIssuedAt: sim.clock.now(),
      delayMs: 300_000,
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
        policy: {},
        now: sim.clock.now() + 60_000,
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
      callBudget: 1 + 2 * workers,
      readMs,
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

export function renderGatePoll(f: GatePollFigures): string {
  const ok = (b: boolean) => (b ? "ok" : "OVER TARGET");
  return [
    `gate poll: ${f.workers} workers, ${f.connectors} connectors, ${f.tasks} tasks, version ${f.version}`,
    `    HTTP calls per poll   ${f.httpCallsPerPoll} (target ≤ ${f.callBudget}: 1 cluster-wide + 2 per worker) ${ok(f.httpCallsPerPoll <= f.callBudget)}`,
    `    read time             ${f.readMs.toFixed(0)} ms (real time, loopback HTTP to the simulator)`,
    `    evaluateSettle        median ${f.evaluateMedianMs.toFixed(1)} ms, max ${f.evaluateMaxMs.toFixed(1)} ms over ${f.evaluations} (target < 50 ms) ${ok(f.evaluateMedianMs < 50)}`,
    `    verdict               ${f.verdict}`,
    `    memory                rss ${f.rssMiB.toFixed(0)} MiB, heap used ${f.heapUsedMiB.toFixed(0)} MiB (whole process, simulator included)`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const version = process.argv.includes("--v39") ? "3.9.1" : "3.7.1";
  const size = process.argv.includes("--200") ? GATE_POLL_SIZES[1] : GATE_POLL_SIZES[0];
  runGatePollBench({ version, ...(size ? { size } : {}) }).then(
    (f) => console.log(renderGatePoll(f)),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
