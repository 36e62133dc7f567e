import type { Prng } from "../../src/sim/prng.js";
import { type AppliedFault, FAULT_KINDS, type FaultKind } from "./chaos-evidence.js";
import type { World } from "./chaos-world.js";

/** When a fault strikes: a while after the command, or a while after the n-th restart call arrived (in flight). */
export type FaultMoment =
  | { readonly kind: "after-command"; readonly ms: number }
  | { readonly kind: "after-restart"; readonly n: number; readonly ms: number };

export interface PlannedFault {
  readonly kind: FaultKind;
  readonly moment: FaultMoment;
  /** How long it lasts (frozen, refusing, slow), or how many Slack calls fail, drawn with the fault. */
  readonly size: number;
  /** Which worker a worker crash hits (an index), drawn with the fault. */
  readonly pick: number;
}

/** One to three faults, all drawn from the round's seed. */
export function drawFaults(
  prng: Prng,
  workers: number,
  lockTtlMs: number,
  only?: readonly FaultKind[],
): PlannedFault[] {
  const kinds = only ?? FAULT_KINDS;
  const count = 1 + prng.int(3);
  return Array.from({ length: count }, () => {
    const kind = kinds[prng.int(kinds.length)] as FaultKind;
    const moment: FaultMoment =
      prng.next() < 0.6
        ? { kind: "after-restart", n: 1 + prng.int(workers), ms: prng.int(400) }
        : { kind: "after-command", ms: prng.int(5_000) };
    const size =
      kind === "freeze-lock-holder"
        ? Math.round(lockTtlMs * (1.5 + prng.next()))
        : kind === "slack-429" || kind === "slack-500"
          ? 2 + prng.int(6)
          : 500 + prng.int(2_500);
    return { kind, moment, size, pick: prng.int(workers) };
  });
}

const failedOver = new WeakSet<object>();

const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Applies one fault to the world and resolves with what was done, once it is healed. */
export async function applyFault(world: World, f: PlannedFault): Promise<AppliedFault> {
  const at = Date.now();
  const done = (target: string | null, skipped?: string): AppliedFault => ({
    kind: f.kind,
    target,
    at,
    until: Date.now(),
    ...(skipped === undefined ? {} : { skipped }),
  });
  switch (f.kind) {
    case "kill-lock-holder":
    case "freeze-lock-holder": {
      const holder = await world.withStore((store) => store.readLock(world.cluster.name)).catch(() => null);
      const replica = holder === null ? undefined : world.replicas.byId(holder.owner);
      if (replica === undefined || !replica.up() || replica.stopped())
        return done(null, holder === null ? "no lock holder" : `holder ${holder.owner} not a live replica`);
      if (f.kind === "kill-lock-holder") {
        replica.kill();
        await replica.exited;
        const killed = done(replica.id);
        // As Kubernetes would: the pod comes back a little later.
        void after(1_000).then(() => world.replicas.respawn(replica.id).catch(() => undefined));
        return killed;
      }
      replica.freeze();
      await after(f.size);
      replica.thaw();
      return done(replica.id);
    }
    case "redis-restart-empty":
      if (world.sentinel !== null) return done(null, "not with a Sentinel group");
      await world.redis.kill();
      await world.redis.restart();
      return done(null);
    case "sentinel-failover": {
      const group = world.sentinel;
      if (group === null) return done(null, "no Sentinel group");
      // One failover per round: the old master stays dead, so a second has no replica to promote.
      if (failedOver.has(group)) return done(null, "already failed over");
      failedOver.add(group);
      // The master dies; the sentinels promote the replica (what was not replicated yet is lost).
      await group.master.kill();
      for (let i = 0; i < 300 && (await group.masterPort().catch(() => -1)) !== group.replica.port; i += 1)
        await after(100);
      return done(`127.0.0.1:${group.replica.port}`);
    }
    case "worker-crash": {
      const worker = world.cluster.workers[f.pick]?.name ?? "worker-1";
      const control = (path: string) =>
        fetch(`${world.cluster.controlUrl}${path}`, {
          method: "POST",
          signal: AbortSignal.timeout(120_000),
        }).catch(() => null);
      await control(`/sim/workers/${worker}/stop?mode=crash`);
      await after(f.size);
      await control(`/sim/workers/${worker}/start`);
      return done(worker);
    }
    case "rest-slow":
    case "rest-refuse":
      for (const p of world.proxies)
        p.setMode(
          f.kind === "rest-slow" ? { kind: "slow", delayMs: 300 + (f.size % 900) } : { kind: "refuse" },
        );
      await after(f.size);
      for (const p of world.proxies) p.setMode({ kind: "pass" });
      return done(null);
    case "slack-429":
    case "slack-500":
      world.slack.failNext(
        "*",
        f.kind === "slack-429"
          ? { status: 429, retryAfterSeconds: 1, times: f.size }
          : { status: 500, times: f.size },
      );
      return done(null);
  }
}
