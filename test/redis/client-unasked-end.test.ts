import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { waitFor } from "../support/wait-for.js";
import { startRedisServer } from "./redis-server-process.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** ioredis's connector, reached the way its failover detector reaches it. */
type WithConnector = { connector: { disconnect(): void } };

describe("the job store's Redis client after ioredis ends it unasked", () => {
  it("connects again when its connector is cut during a reconnect (what Sentinel's failover detector does), and stays closed once disconnected", async () => {
    const server = await startRedisServer();
    cleanups.push(() => server.stop());
    const redis = createRedisClient(server.url, pino({ level: "silent" }));
    cleanups.push(async () => redis.disconnect());
    await connectRedis(redis, server.url, AbortSignal.timeout(10_000));
    const statuses: string[] = [];
    redis.on("end", () => statuses.push("end"));
    // The next connect is cut as it starts: ioredis rejects it with "Connection is closed." and ends the client.
    redis.once("connecting", () => (redis as unknown as WithConnector).connector.disconnect());
    redis.disconnect(true);
    await waitFor("the client ended by the cut connect", () => statuses.includes("end"));
    await waitFor("the client answering again", () =>
      redis.ping().then(
        (r) => r === "PONG",
        () => false,
      ),
    );
    expect(redis.status).toBe("ready");
    redis.disconnect();
    await waitFor("the disconnected client ended", () => redis.status === "end");
    await expect(redis.ping()).rejects.toThrow(/Connection is closed/);
    expect(statuses.filter((s) => s === "end")).toHaveLength(2);
  });
});
