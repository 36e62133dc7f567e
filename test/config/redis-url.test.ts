import { describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env.js";
import { parseRedisUrl } from "../../src/config/redis-url.js";

describe("parseRedisUrl", () => {
  it.each([
    ["redis://127.0.0.1:6379", { kind: "standalone", url: "redis://127.0.0.1:6379", tls: false }],
    [
      "rediss://:pw@redis.internal:6380/2",
      { kind: "standalone", url: "rediss://:pw@redis.internal:6380/2", tls: true },
    ],
    [
      "redis+sentinel://roll:p%40ss@s1:26379,s2,10.0.0.3:26380/mymaster/3",
      {
        kind: "sentinel",
        sentinels: [
          { host: "s1", port: 26379 },
          { host: "s2", port: 26379 },
          { host: "10.0.0.3", port: 26380 },
        ],
        masterName: "mymaster",
        db: 3,
        username: "roll",
        password: "p@ss",
        tls: false,
      },
    ],
    [
      "rediss+cluster://n1:7000,[::1]:7001",
      {
        kind: "cluster",
        nodes: [
          { host: "n1", port: 7000 },
          { host: "::1", port: 7001 },
        ],
        username: null,
        password: null,
        tls: true,
      },
    ],
  ])("%s", (url, target) => {
    expect(parseRedisUrl(url)).toEqual({ ok: true, target });
  });

  it.each([
    ["http://h:1", "must be redis://"],
    ["redis+sentinel://h:26379", "needs the master's name"],
    ["redis+sentinel://h:26379/m/x", "must be a number"],
    ["redis+cluster://h:7000/0", "takes no path"],
    ["redis+cluster://h:99999", "out of range"],
    ["redis+cluster://h:1,,h:2", "is not host[:port]"],
  ])("refuses %s: %s", (url, message) => {
    const parsed = parseRedisUrl(url);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.error).toContain(message);
  });

  it("REDIS_URL accepts the HA forms and reports a bad one with its path, never the password", () => {
    expect(readEnv({ REDIS_URL: "redis+sentinel://s1:26379/m" }).REDIS_URL).toBe(
      "redis+sentinel://s1:26379/m",
    );
    expect(() => readEnv({ REDIS_URL: "redis+sentinel://u:hunter2@s1:26379" })).toThrow(/REDIS_URL/);
    expect(() => readEnv({ REDIS_URL: "redis+sentinel://u:hunter2@s1:26379" })).not.toThrow(/hunter2/);
  });
});
