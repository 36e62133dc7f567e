import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { waitFor } from "../support/wait-for.js";
import { type RedisServerProcess, startRedisServer } from "./redis-server-process.js";

/** Three redis-server processes in cluster mode on loopback ports of their own, joined as 3 masters (no replicas). */
export async function startRedisCluster(): Promise<{
  nodes: RedisServerProcess[];
  url: string;
  stop(): Promise<void>;
}> {
  const nodes = await Promise.all(
    [1, 2, 3].map(() =>
      startRedisServer({
        args: ["--appendonly", "yes", "--cluster-enabled", "yes", "--cluster-node-timeout", "2000"],
      }),
    ),
  );
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    await promisify(execFile)("/usr/bin/redis-cli", [
      "--cluster",
      "create",
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    for (const n of nodes) {
      const admin = n.admin();
      await waitFor(
        `cluster_state:ok on ${n.port}`,
        async () => /cluster_state:ok/.test(String(await admin.call("CLUSTER", "INFO"))),
        {
          timeoutMs: 15_000,
        },
      );
      await admin.quit();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}`, stop };
}
