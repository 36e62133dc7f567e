import { compareVersions, parseKafkaVersion } from "../version.js";
import type { Finding, PlanStep, RolloutTarget } from "./plan-types.js";

/**
 * A target older than what some workers run (docs/connect-behaviour.md#downgrades). Between versions that rebalance
 * cooperatively Kafka allows it: the workers share one group and its internal topics whatever their version, so a
 * rolling downgrade goes like an upgrade (a real 4.1.2 → 3.9.2 rollback stayed sessioned, held and moved exactly as
 * planned). Back to a version that speaks only eager (before 2.3) tasks can run twice (KAFKA-13816).
 */
export function findDowngradeFindings(steps: readonly PlanStep[], target: RolloutTarget): Finding[] {
  if (target.kind !== "upgrade") return [];
  const to = parseKafkaVersion(target.version);
  if (to === null) return [];
  const older = steps.filter((s) => {
    const from = s.fromVersion === null ? null : parseKafkaVersion(s.fromVersion);
    return from !== null && compareVersions(to, from) < 0;
  });
  if (older.length === 0) return [];
  const eagerOnly = compareVersions(to, { major: 2, minor: 3, patch: 0, suffix: "", raw: "" }) < 0;
  return [
    {
      severity: "warn",
      code: "downgrade",
      message: `This is a downgrade: ${older.map((s) => `${s.worker} runs ${s.fromVersion}`).join(", ")}, the target is ${target.version}. ${
        eagerOnly
          ? "The target speaks only the eager protocol: rolling back to it can run tasks twice (KAFKA-13816; see docs/connect-behaviour.md#downgrades)."
          : "Kafka Connect allows it between cooperative versions (one group, the same internal topics); check that the target's release notes allow it for your connectors and converters."
      }`,
    },
  ];
}
