import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { type SpawnedCli, spawnConnectRoll } from "../cli/support/spawn-cli.js";
import { freePort } from "../redis/redis-server-process.js";
import { waitFor } from "../support/wait-for.js";

/**
 * R `connect-roll serve` processes on one Redis, each with its own port, replica id and config file (the same
 * cluster, but the executor's control URL names the replica, so the call log knows who restarted what).
 */
export interface Replica {
  readonly id: string;
  readonly exited: Promise<unknown>;
  readonly port: number;
  /** Its process group's id (the process `serve` runs in leads it). */
  readonly pid: number;
  /** Alive and not stopped. */
  up(): boolean;
  stopped(): boolean;
  /** SIGKILL of its process group. */
  kill(): void;
  /** SIGSTOP / SIGCONT of its process group. */
  freeze(): void;
  thaw(): void;
  stderr(): string;
}

export interface ReplicaSetOptions {
  readonly count: number;
  /** The config file's content for a replica (its executor's control URL differs). */
  readonly configFor: (replica: string) => Record<string, unknown>;
  readonly env: Record<string, string>;
  readonly tag: string;
}

export interface ReplicaSet {
  readonly replicas: readonly Replica[];
  /** Starts a killed replica again (what Kubernetes does with a crashed pod), on its port while that is free; resolves once it is ready. */
  respawn(id: string): Promise<void>;
  byId(id: string): Replica | undefined;
  /** Live, unfrozen replicas. */
  live(): Replica[];
  /** SIGKILL of every replica (thawed first) and waits for their exits. */
  close(): Promise<void>;
}

export async function startReplicaSet(o: ReplicaSetOptions): Promise<ReplicaSet> {
  const spawnOne = (id: string, port: number, config: string) =>
    wrap(
      id,
      port,
      spawnConnectRoll(["serve", "--config", config], {
        ...o.env,
        PORT: String(port),
        CONNECT_ROLL_REPLICA_ID: id,
        LOG_LEVEL: "warn",
      }),
    );
  const ready = (r: Replica) =>
    waitFor(
      `${r.id} to answer /readyz`,
      async () => {
        if (!r.up()) throw new Error(`${r.id} exited: ${r.stderr().slice(-2000)}`);
        return (await fetch(`http://127.0.0.1:${r.port}/readyz`).catch(() => null))?.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
  // A port found free can be taken by another process (a parallel campaign) before the replica binds it: a replica
  // that exits at start with EADDRINUSE is started again on another free port.
  const startReady = async (id: string, firstPort: number, config: string): Promise<Replica> => {
    let port = firstPort;
    for (let attempt = 1; ; attempt++) {
      const r = spawnOne(id, port, config);
      try {
        await ready(r);
        return r;
      } catch (err) {
        r.kill();
        await r.exited;
        if (attempt >= 5 || !r.stderr().includes("EADDRINUSE")) throw err;
        port = await freePort();
      }
    }
  };
  const configs = new Map<string, string>();
  const started = await Promise.allSettled(
    Array.from({ length: o.count }, async (_, i) => {
      const id = `replica-${i + 1}`;
      const config = join(tmpdir(), `connect-roll-chaos-${o.tag}-${id}-${process.pid}.yml`);
      await writeFile(config, stringify(o.configFor(id)));
      configs.set(id, config);
      return startReady(id, await freePort(), config);
    }),
  );
  const replicas: Replica[] = [];
  for (const s of started) if (s.status === "fulfilled") replicas.push(s.value);
  const failed = started.find((s) => s.status === "rejected");
  if (failed !== undefined) {
    for (const r of replicas) r.kill();
    await Promise.all(replicas.map((r) => r.exited));
    throw failed.reason;
  }
  return {
    replicas,
    async respawn(id) {
      const index = replicas.findIndex((r) => r.id === id);
      const old = replicas[index];
      if (old === undefined || old.up()) return;
      replicas[index] = await startReady(id, old.port, configs.get(id) ?? "");
    },
    byId: (id) => replicas.find((r) => r.id === id),
    live: () => replicas.filter((r) => r.up() && !r.stopped()),
    async close() {
      for (const r of replicas) {
        r.thaw();
        r.kill();
      }
      await Promise.all(replicas.map((r) => r.exited));
    },
  };
}

function wrap(id: string, port: number, cli: SpawnedCli): Replica {
  let dead = false;
  let frozen = false;
  void cli.exited.then(() => {
    dead = true;
  });
  const signal = (name: NodeJS.Signals) => {
    if (cli.groupAlive()) process.kill(-cli.pid, name);
  };
  return {
    id,
    port,
    pid: cli.pid,
    exited: cli.exited,
    up: () => !dead,
    stopped: () => frozen,
    kill: () => {
      cli.stop();
    },
    freeze: () => {
      frozen = true;
      signal("SIGSTOP");
    },
    thaw: () => {
      frozen = false;
      signal("SIGCONT");
    },
    stderr: () => cli.err(),
  };
}
