import { describe, expect, it } from "vitest";
import { runCampaign } from "../chaos/run-chaos.js";

/**
 * One chaos round on real Kafka Connect (`npm run chaos -- --cluster lab` runs longer campaigns): three
 * `connect-roll serve` replicas on one Redis roll a 3-worker lab whose workers sit behind fault proxies, while the
 * round's faults strike, and every invariant is checked from the lab's own ledger and the executor's call log.
 */
const SEED = 5_000;

describe("chaos on the lab (3 replicas)", () => {
  it("holds every invariant through a seeded round of faults on real workers", async () => {
    const lines: string[] = [];
    const result = await runCampaign({
      cluster: "lab",
      rounds: 1,
      seed: SEED,
      replicas: 3,
      write: (l) => lines.push(l),
      verbose: true,
    });
    console.log(lines.join("\n"));
    const faults = result.rounds.flatMap((r) => r.faults.filter((f) => f.skipped === undefined));
    expect(faults.length, lines.join("\n")).toBeGreaterThan(0);
    expect(result.held, lines.join("\n")).toBe(true);
  }, 600_000);
});
