import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "../support/wait-for.js";
import { freePort, type RedisServerProcess, startRedisServer } from "./redis-server-process.js";

/** Debian's redis-sentinel (the same binary as redis-server, in sentinel mode), or null when it is not installed. */
export const SENTINEL_BIN = existsSync("/usr/bin/redis-sentinel") ? "/usr/bin/redis-sentinel" : null;

export interface SentinelGroup {
  readonly master: RedisServerProcess;
  readonly replica: RedisServerProcess;
  readonly sentinels: readonly RedisServerProcess[];
  /** `redis+sentinel://…/roll` */
  readonly url: string;
  /** The port the sentinels name as the master now. */
  masterPort(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A master and a replica (AOF on) watched by three sentinels (quorum 2, down after 1 s) as master `roll`, all on
 * loopback ports of their own; returns once the sentinels know each other and the replica.
 */
export async function startSentinelGroup(): Promise<SentinelGroup> {
  const started: RedisServerProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((s) => s.stop()));
  };
  try {
    const master = await startRedisServer({ args: ["--appendonly", "yes"] });
    started.push(master);
    const replica = await startRedisServer({ args: ["--appendonly", "yes"] });
    started.push(replica);
    const admin = replica.admin();
    await admin.call("REPLICAOF", "127.0.0.1", String(master.port));
    await waitFor(
      "the replica's link to the master",
      async () => /master_link_status:up/.test(await admin.info("replication")),
      {
        timeoutMs: 10_000,
      },
    );
    await admin.quit();
    const sentinels: RedisServerProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await startRedisServer({
        port: await freePort(),
        bin: SENTINEL_BIN ?? undefined,
        sentinelConfig: async (p, dir) => {
          const file = join(dir, "sentinel.conf");
          await writeFile(
            file,
            [
              `port ${p}`,
              "bind 127.0.0.1",
              `dir ${dir}`,
              `sentinel monitor roll 127.0.0.1 ${master.port} 2`,
              "sentinel down-after-milliseconds roll 1000",
              "sentinel failover-timeout roll 5000",
              "sentinel parallel-syncs roll 1",
              "",
            ].join("\n"),
          );
          return file;
        },
      });
      started.push(s);
      sentinels.push(s);
    }
    const ask = async (...args: string[]) => {
      const probe = sentinels[0]?.admin();
      if (probe === undefined) throw new Error("no sentinel");
      try {
        return (await probe.call("SENTINEL", ...args)) as string[];
      } finally {
        probe.disconnect();
      }
    };
    await waitFor(
      "the sentinels to see each other and the replica",
      async () => {
        const fields = await ask("MASTER", "roll");
        const get = (k: string) => fields[fields.indexOf(k) + 1];
        return Number(get("num-other-sentinels")) === 2 && Number(get("num-slaves")) === 1;
      },
      { timeoutMs: 20_000 },
    );
    return {
      master,
      replica,
      sentinels,
      url: `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(",")}/roll`,
      masterPort: async () => Number((await ask("GET-MASTER-ADDR-BY-NAME", "roll"))[1]),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
