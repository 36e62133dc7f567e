import { type FrontierData, type FrontierPoint, paretoFrontier } from "../chart/frontier-chart.js";
import { STRATEGY_LABELS } from "../table.js";
import { spreads } from "./lab-figures.js";
import { type LabBenchFile, labFloor } from "./lab-report.js";

/**
 * The real lab's frontier: each strategy's mean wall time against its mean Σ data gap from the lab's ground truth
 * (filled), the simulator's figures for the same cluster beside it (hollow), the lab's floor, and the frontier line
 * through the real points only.
 */
export function labFrontierData(file: LabBenchFile): FrontierData {
  const l = file.lab;
  const real: FrontierPoint[] = [];
  const simulated: FrontierPoint[] = [];
  for (const s of file.strategies) {
    const sp = spreads(s.runs);
    const wall = sp.wallMs;
    const gap = sp.gapSumMs;
    const peak = sp.peakShare;
    if (wall !== undefined && gap !== undefined && peak !== undefined)
      real.push({
        strategy: s.id,
        label: `${STRATEGY_LABELS[s.id]} ×${s.runs.length}`,
        wallMs: wall.mean,
        gapMs: gap.mean,
        peakShare: peak.mean,
      });
    if (s.sim !== null)
      simulated.push({
        strategy: s.id,
        label: STRATEGY_LABELS[s.id],
        wallMs: s.sim.wallMs,
        gapMs: s.sim.gap.sumMs,
        peakShare: s.sim.peakShare,
        simulated: true,
      });
  }
  const floor = labFloor(file);
  const route = l.to === l.from ? `${l.from} restart` : `${l.from} → ${l.to}`;
  return {
    title: "Real Kafka Connect: wall time against Σ data gap",
    subtitle: `lab, ${l.workers} workers × ${l.connectors * l.tasksPerConnector} tasks, ${route}, delay ${Math.round(l.delayMs / 1000)} s, ${l.cpus} cores · filled: lab (mean of runs), hollow: simulator`,
    points: [...real, ...simulated],
    floor: floor === null ? null : { wallMs: floor.wallMs, gapMs: floor.sumMs },
    frontier: paretoFrontier(real),
  };
}
