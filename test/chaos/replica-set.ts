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
  readonly port: number;
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
  byId(id: string): Replica | undefined;
  /** Live, unfrozen replicas. */
  live(): Replica[];
  /** SIGKILL of every replica (thawed first) and waits for their exits. */
  close(): Promise<void>;
}

export async function startReplicaSet(o: ReplicaSetOptions): Promise<ReplicaSet> {
  const replicas = await Promise.all(
    Array.from({ length: o.count }, async (_, i) => {
      const id = `replica-${i + 1}`;
      const port = await freePort();
      const config = join(tmpdir(), `connect-roll-chaos-${o.tag}-${id}-${process.pid}.yml`);
      await writeFile(config, stringify(o.configFor(id)));
      const cli = spawnConnectRoll(["serve", "--config", config], {
        ...o.env,
        PORT: String(port),
        CONNECT_ROLL_REPLICA_ID: id,
        LOG_LEVEL: "warn",
      });
      return wrap(id, port, cli);
    }),
  );
  try {
    await Promise.all(
      replicas.map((r) =>
        waitFor(
          `${r.id} to answer /readyz`,
          async () => {
            if (!r.up()) throw new Error(`${r.id} exited: ${r.stderr().slice(-2000)}`);
            return (await fetch(`http://127.0.0.1:${r.port}/readyz`).catch(() => null))?.status === 200;
          },
          { timeoutMs: 30_000, intervalMs: 50 },
        ),
      ),
    );
  } catch (err) {
    for (const r of replicas) r.kill();
    throw err;
  }
  return {
    replicas,
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

function wrap(id: string, port: number, cli: SpawnedCli): Replica & { exited: Promise<unknown> } {
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
