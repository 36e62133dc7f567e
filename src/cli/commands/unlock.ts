import { setTimeout as delay } from "node:timers/promises";
import type { LockHolder } from "../../jobs/store/job-store.js";
import type { OperatorCommandStore } from "../../jobs/store/store-roles.js";
import { type CliCommand, ExitCode } from "../command.js";
import { openOperatorStore, unknownClusterMessage } from "../operator-store.js";

type UnlockVerdict =
  | { readonly kind: "free" }
  | { readonly kind: "renewed"; readonly holder: LockHolder }
  | { readonly kind: "stale"; readonly holder: LockHolder };

/**
 * Watches the lock for longer than one renewal period (a live lock keeper renews every third of its TTL): a lease
 * that moves forward has a live owner. `pollMs` is how often it looks.
 */
async function watchLock(
  store: OperatorCommandStore,
  cluster: string,
  watchMs: number,
  signal: AbortSignal,
  pollMs = 250,
): Promise<UnlockVerdict> {
  const first = await store.readLock(cluster);
  if (first === null) return { kind: "free" };
  const until = Date.now() + watchMs;
  while (Date.now() < until) {
    await delay(pollMs, undefined, { signal });
    const now = await store.readLock(cluster);
    if (now === null) return { kind: "free" };
    if (now.jobId !== first.jobId || now.expiresAt > first.expiresAt) return { kind: "renewed", holder: now };
  }
  return { kind: "stale", holder: first };
}

export const unlockCommand: CliCommand = {
  name: "unlock",
  summary: "force-release a cluster lock whose owner is gone (audited; refused while a replica renews it)",
  help: `Usage: connect-roll unlock [--config FILE] CLUSTER --reason TEXT

Frees the cluster's lock in the bot's Redis when its owner is gone but the lease has not expired (or a lock has no
job). It first watches the lease for longer than one renewal period (CONNECT_ROLL_LOCK_TTL_MS / 3 + 1 s): while a
live replica or run renews it, unlock is refused (use connect-roll abort instead). The release and the reason are
appended to the job's audit trail; the old owner's next renewal or checkpoint fails, so it stops.

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  --reason TEXT   why (required; recorded in the audit trail)
  -h, --help      show this help

Exit codes: 0 released (or already free); 1 refused, or Redis cannot be read; 2 usage error.`,
  options: { config: { type: "string", default: "connect-roll.yml" }, reason: { type: "string" } },
  positionals: { min: 1, max: 1, names: ["CLUSTER"] },
  async run(values, positionals, io) {
    const cluster = positionals[0] ?? "";
    const reason = typeof values.reason === "string" ? values.reason.trim() : "";
    if (reason === "") {
      io.stderr.write("connect-roll unlock: --reason TEXT is required (it goes into the audit trail)\n");
      return ExitCode.Usage;
    }
    if (reason.length > 300 || /[\r\n]/.test(reason)) {
      io.stderr.write("connect-roll unlock: --reason must be one line of at most 300 characters\n");
      return ExitCode.Usage;
    }
    const opened = await openOperatorStore(String(values.config), io);
    if (opened.kind === "error") {
      io.stderr.write(`connect-roll unlock: ${opened.message}\n`);
      return ExitCode.Failed;
    }
    const { config, store, operator, lockTtlMs } = opened.value;
    try {
      const unknown = unknownClusterMessage(config, cluster);
      if (unknown) {
        io.stderr.write(`connect-roll unlock: ${unknown}\n`);
        return ExitCode.Usage;
      }
      const verdict = await watchLock(store, cluster, Math.ceil(lockTtlMs / 3) + 1_000, io.signal);
      if (verdict.kind === "free") {
        io.stdout.write(`${cluster} is not locked: nothing to release\n`);
        return ExitCode.Ok;
      }
      if (verdict.kind === "renewed") {
        io.stderr.write(
          `connect-roll unlock: refused: ${cluster}'s lock (job ${verdict.holder.jobId}) is being renewed by ${verdict.holder.owner}, a live owner; stop it with connect-roll abort ${cluster}\n`,
        );
        return ExitCode.Failed;
      }
      const released = await store.forceRelease(cluster, `${operator}: ${reason}`);
      if (released.kind === "not-held") {
        io.stdout.write(`${cluster}'s lock expired meanwhile: nothing to release\n`);
        return ExitCode.Ok;
      }
      io.stdout.write(
        `released ${cluster}'s lock (job ${released.holder.jobId}, owner ${released.holder.owner}); audited with your reason. An unfinished job is resumed by a bot replica (or connect-roll run of the same target)\n`,
      );
      return ExitCode.Ok;
    } finally {
      await opened.value.close();
    }
  },
};
