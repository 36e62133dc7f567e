import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { waitFor } from "../support/wait-for.js";
import { SENTINEL_BIN, startSentinelGroup } from "./redis-sentinel-fixture.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe.skipIf(SENTINEL_BIN === null)("the job store's Redis client through a Sentinel failover", () => {
  it("every client answers again once the replica is promoted (none gives up: 'Connection is closed')", async () => {
    const group = await startSentinelGroup();
    cleanups.push(() => group.stop());
    // Several clients, as several bot replicas have: the race that ended some of them did not hit every one.
    const clients = Array.from({ length: 6 }, () => createRedisClient(group.url, pino({ level: "silent" })));
    cleanups.push(async () => {
      for (const c of clients) c.disconnect();
    });
    for (const c of clients) await connectRedis(c, group.url, AbortSignal.timeout(10_000));
    // Traffic while the master dies, as the orphan sweeps and lock renewals make.
    const traffic = setInterval(() => {
      for (const c of clients) void c.ping().catch(() => undefined);
    }, 100);
    cleanups.push(async () => clearInterval(traffic));
    await group.master.kill();
    await waitFor(
      "the sentinels to promote the replica",
      async () => (await group.masterPort()) === group.replica.port,
      {
        timeoutMs: 20_000,
      },
    );
    await waitFor(
      "every client to answer the new master",
      async () =>
        (
          await Promise.all(
            clients.map((c) =>
              c.ping().then(
                () => true,
                () => false,
              ),
            ),
          )
        ).every(Boolean),
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(clients.map((c) => c.status)).toEqual(clients.map(() => "ready"));
  }, 60_000);
});
