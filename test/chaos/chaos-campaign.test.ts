import { describe, expect, it } from "vitest";
import { runCampaign } from "./run-chaos.js";

/**
 * A short chaos campaign on a fixed seed (`npm run chaos` runs long ones): three rounds against three real
 * `connect-roll serve` replicas, each round with one to three faults drawn by the seed, every invariant checked.
 * A failure prints the round's seed to replay it (`npm run chaos -- --cluster sim --seed S --rounds 1 --verbose`).
 */
const SEED = 7_000;

describe("chaos campaign (simulator, 3 replicas)", () => {
  it("holds every invariant through three seeded rounds of faults", async () => {
    const lines: string[] = [];
    const result = await runCampaign({
      rounds: 3,
      seed: SEED,
      replicas: 3,
      write: (l) => lines.push(l),
      verbose: true,
    });
    const faults = result.rounds.flatMap((r) => r.faults.filter((f) => f.skipped === undefined));
    expect(faults.length, lines.join("\n")).toBeGreaterThan(0);
    expect(result.held, lines.join("\n")).toBe(true);
  }, 240_000);
});
