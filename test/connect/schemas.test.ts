import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, configHash } from "../../src/connect/config-hash.js";
import { toConnectorSnapshot } from "../../src/connect/connector-snapshots.js";
import { parseExpandedConnectors, parseHealth, parseServerInfo } from "../../src/connect/schemas.js";
import { AppError, ErrorCode } from "../../src/core/errors.js";
import { sameConfigHash } from "../../src/core/snapshot.js";
import { expandedConnectors, serverInfo } from "./connect-fixtures.js";

const URL = "http://10.0.0.5:8083/connectors?expand=status&expand=info";

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected a throw");
}

describe("Connect REST schemas", () => {
  it("reads GET / and refuses a body without a version, with the path of the bad value", () => {
    expect(parseServerInfo(serverInfo("3.9.0"), "http://h:8083/").version).toBe("3.9.0");
    expect(parseServerInfo({ version: "3.7.0" }, "http://h:8083/").version).toBe("3.7.0");
    const err = thrown(() => parseServerInfo({ commit: "abc" }, "http://h:8083/"));
    expect(err.code).toBe(ErrorCode.ConnectBadResponse);
    expect(err.message).toContain("version");
  });

  it("reads GET /health with 200, 503 and 500", () => {
    expect(parseHealth({ status: "healthy", message: "ok" }, 200, "u")).toBe("healthy");
    expect(parseHealth({ status: "starting", message: "…" }, 503, "u")).toBe("starting");
    expect(parseHealth({ status: "unhealthy", message: "stuck" }, 500, "u")).toBe("unhealthy");
    expect(parseHealth({ status: "weird" }, 503, "u")).toBe("starting");
    expect(parseHealth({ status: "weird" }, 418, "u")).toBe("unknown");
    expect(thrown(() => parseHealth("<html>", 500, "u")).code).toBe(ErrorCode.ConnectBadResponse);
  });

  it("reads the expanded connector list into snapshots", () => {
    const parsed = parseExpandedConnectors(expandedConnectors(["a:8083", "b:8083", "c:8083"]), URL);
    expect(parsed.skipped).toEqual([]);
    const snaps = parsed.connectors.map(toConnectorSnapshot);
    expect(snaps.map((c) => c.name)).toEqual(["cdc-source", "orders-sink"]);
    const sink = snaps[1];
    expect(sink).toMatchObject({ type: "sink", state: "RUNNING", workerId: "a:8083", taskCount: 2 });
    expect(sink?.tasks).toEqual([
      { id: 0, state: "RUNNING", workerId: "b:8083", trace: null },
      { id: 1, state: "RUNNING", workerId: "c:8083", trace: null },
    ]);
    expect(snaps[0]?.tasks[0]?.trace).toContain("ConnectException");
    expect(sink?.configHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("maps unknown states to UNKNOWN and accepts STOPPED connectors and null worker ids", () => {
    const parsed = parseExpandedConnectors(
      {
        c: {
          status: {
            name: "c",
            connector: { state: "STOPPED", worker_id: null },
            tasks: [
              { id: 0, state: "DESTROYED", worker_id: "a:8083" },
              { id: 1, state: "STOPPED", worker_id: "a:8083" },
              { id: 2, state: "SOMETHING_NEW" },
            ],
            type: "source",
          },
          info: { name: "c", config: {}, tasks: [], type: "mystery" },
        },
        d: {
          status: { name: "d", connector: { state: "HALTED", worker_id: "a:8083" }, tasks: [] },
          info: { name: "d", config: {}, tasks: [] },
        },
      },
      URL,
    );
    const [c, d] = parsed.connectors.map(toConnectorSnapshot);
    expect(c?.state).toBe("STOPPED");
    expect(c?.workerId).toBeNull();
    expect(c?.type).toBe("source");
    expect(c?.tasks.map((t) => t.state)).toEqual(["UNKNOWN", "UNKNOWN", "UNKNOWN"]);
    expect(c?.tasks[2]?.workerId).toBeNull();
    expect(d?.state).toBe("UNKNOWN");
    expect(d?.type).toBe("unknown");
  });

  it("skips and reports a connector that disappeared during the lookup, or a malformed one", () => {
    const body = expandedConnectors(["a:8083"]);
    const parsed = parseExpandedConnectors(
      {
        ...body,
        gone: { info: { name: "gone", config: {}, tasks: [], type: "sink" } },
        gone2: {},
        gone3: { status: null, info: null },
        broken: { status: { name: "broken", tasks: [] }, info: { name: "broken", config: {}, tasks: [] } },
      },
      URL,
    );
    expect(parsed.connectors.map((c) => c.name)).toEqual(["cdc-source", "orders-sink"]);
    expect(parsed.skipped.map((s) => s.name)).toEqual(["gone", "gone2", "gone3", "broken"]);
    expect(parsed.skipped[0]?.reason).toContain("no status");
    expect(parsed.skipped[1]?.reason).toContain("no status and info");
    expect(parsed.skipped[3]?.reason).toContain("connector");
  });

  it("refuses a body that is not a map of connectors", () => {
    for (const body of [["a", "b"], null, "x"]) {
      expect(thrown(() => parseExpandedConnectors(body, URL)).code).toBe(ErrorCode.ConnectBadResponse);
    }
  });
});

describe("configHash", () => {
  it("is stable whatever the key order, and changes with any value", () => {
    const a = { "tasks.max": "2", topics: "orders", name: "x" };
    const b = { name: "x", topics: "orders", "tasks.max": "2" };
    expect(configHash(a)).toBe(configHash(b));
    expect(configHash(a)).not.toBe(configHash({ ...a, "tasks.max": "3" }));
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });

  it("compares with a checkpoint's full-length sha256 on its first 64 bits, and with nothing else by prefix", () => {
    const config = { name: "x", topics: "orders" };
    const full = createHash("sha256").update(canonicalJson(config), "utf8").digest("hex");
    expect(sameConfigHash(configHash(config), full)).toBe(true);
    expect(sameConfigHash(full, configHash(config))).toBe(true);
    expect(sameConfigHash(configHash({ ...config, topics: "clicks" }), full)).toBe(false);
    expect(sameConfigHash("abc", "abcdef")).toBe(false);
  });
});
