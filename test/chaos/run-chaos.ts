import { parseArgs } from "node:util";
import { formatDuration } from "../../src/core/format-duration.js";
import { plural } from "../../src/core/plural.js";
import type { ChaosClusterKind } from "./chaos-cluster.js";
import { FAULT_KINDS, type FaultKind } from "./chaos-evidence.js";
import { type RoundResult, runRound } from "./chaos-round.js";

/**
 * `npm run chaos -- --cluster sim|lab [--rounds N] [--seed S] [--replicas R] [--kafka V]`: a randomized fault
 * campaign against real `connect-roll serve` replicas rolling the simulator or a real lab (README, "Chaos campaign"). Round i runs with seed S+i-1, so a failing round replays
 * alone with `--seed <its seed> --rounds 1`. Exit 0 only when every invariant held in every round.
 */
export interface CampaignOptions {
  /** Default the simulator. */
  readonly cluster?: ChaosClusterKind;
  /** The lab's Kafka version. */
  readonly kafka?: string;
  readonly rounds: number;
  readonly seed: number;
  readonly replicas: number;
  readonly only?: readonly FaultKind[];
  readonly write: (line: string) => void;
  /** Print what the failing rounds' threads and replicas said. */
  readonly verbose?: boolean;
}

export interface CampaignResult {
  readonly rounds: readonly RoundResult[];
  readonly held: boolean;
}

export function describeFault(f: RoundResult["faults"][number]): string {
  const target = f.target === null ? "" : `(${f.target})`;
  return f.skipped === undefined ? `${f.kind}${target}` : `${f.kind}[skipped: ${f.skipped}]`;
}

export async function runCampaign(o: CampaignOptions): Promise<CampaignResult> {
  const started = Date.now();
  const rounds: RoundResult[] = [];
  for (let i = 0; i < o.rounds; i += 1) {
    const seed = o.seed + i;
    const r = await runRound({
      ...(o.cluster === undefined ? {} : { cluster: o.cluster }),
      ...(o.kafka === undefined ? {} : { kafka: o.kafka }),
      seed,
      replicas: o.replicas,
      ...(o.only === undefined ? {} : { only: o.only }),
    });
    rounds.push(r);
    const failed = r.verdicts.filter((v) => !v.held);
    o.write(
      `round ${i + 1}/${o.rounds} seed ${seed}: ${r.faults.map(describeFault).join(", ")} · ${plural(r.rollouts, "rollout")}, ${plural(r.restarts, "restart")} · ${r.verdicts.length - failed.length}/${r.verdicts.length} invariants held · ${formatDuration(r.wallMs)}`,
    );
    for (const v of failed) o.write(`  FAILED ${v.invariant}: ${v.detail}`);
    if (failed.length > 0 && o.verbose === true) for (const line of r.diagnostics) o.write(`    ${line}`);
    if (failed.length > 0)
      o.write(
        `  replay: npm run chaos -- --cluster ${o.cluster ?? "sim"}${o.kafka === undefined ? "" : ` --kafka ${o.kafka}`} --seed ${seed} --rounds 1 --replicas ${o.replicas}`,
      );
  }
  const byKind = new Map<string, number>();
  for (const r of rounds)
    for (const f of r.faults) if (f.skipped === undefined) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
  const bad = rounds.filter((r) => !r.held);
  o.write(
    `campaign: ${plural(rounds.length, "round")}, ${plural(
      [...byKind.values()].reduce((a, b) => a + b, 0),
      "fault",
    )} applied (${[...byKind.entries()].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}), ${plural(rounds.length - bad.length, "round")} held every invariant, ${bad.length} failed${bad.length > 0 ? ` (seeds ${bad.map((r) => r.seed).join(", ")})` : ""} · ${formatDuration(Date.now() - started)}`,
  );
  return { rounds, held: bad.length === 0 };
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      cluster: { type: "string" },
      kafka: { type: "string" },
      rounds: { type: "string", default: "10" },
      seed: { type: "string" },
      replicas: { type: "string", default: "3" },
      faults: { type: "string" },
      verbose: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.cluster !== "sim" && values.cluster !== "lab") {
    process.stderr.write(
      `chaos: --cluster needs sim (the simulator in real time) or lab (real Kafka Connect, Java 17+), not ${values.cluster ?? "nothing"}\n`,
    );
    return 2;
  }
  if (values.kafka !== undefined && values.cluster !== "lab") {
    process.stderr.write("chaos: --kafka names the lab's version: use it with --cluster lab\n");
    return 2;
  }
  const int = (name: string, text: string | undefined, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} must be a whole number ≥ ${min}, not ${text}`);
    return n;
  };
  const only = values.faults?.split(",").map((k) => {
    if (!FAULT_KINDS.includes(k as FaultKind))
      throw new Error(`--faults: unknown fault ${k} (one of ${FAULT_KINDS.join(", ")})`);
    return k as FaultKind;
  });
  const seed =
    values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : int("seed", values.seed, 0);
  const result = await runCampaign({
    cluster: values.cluster,
    ...(values.kafka === undefined ? {} : { kafka: values.kafka }),
    rounds: int("rounds", values.rounds, 1),
    seed,
    replicas: int("replicas", values.replicas, 1),
    ...(only === undefined ? {} : { only }),
    verbose: values.verbose === true,
    write: (line) => process.stdout.write(`${line}\n`),
  });
  return result.held ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`chaos: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
