import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { REBALANCE_ERROR } from "./connect-fixtures.js";
import {
  closeFakeWorkers,
  connectorCallsOf,
  endpoints,
  reader,
  servers,
  threeWorkers,
} from "./fake-connect-workers.js";
import { memoryStream, refusedUrl, sendJson, startLoopbackServer } from "./loopback-server.js";

afterEach(closeFakeWorkers);

describe("HTTP cluster reader: workers down or hanging, credentials, abort", () => {
  it("marks a worker refusing connections unreachable and still reads the cluster from the next one", async () => {
    const down = await refusedUrl();
    const ws = await threeWorkers();
    const workers = [
      { name: "connect-down", url: down, metricsUrl: `${down}/metrics` },
      ...endpoints(ws.slice(1)),
    ];
    const r = reader(workers);
    const snap = await r.read();
    expect(snap.workers[0]).toMatchObject({
      name: "connect-down",
      reachable: false,
      version: null,
      health: "unknown",
      metrics: null,
    });
    expect(snap.workers[0]?.error).toContain("Cannot reach");
    expect(snap.workers.slice(1).every((w) => w.reachable)).toBe(true);
    expect(snap.connectors).toHaveLength(2);
    expect(connectorCallsOf(ws)).toEqual([0, 1, 0]);

    await r.read();
    expect(connectorCallsOf(ws)).toEqual([0, 2, 0]);
  });

  it("reports connectors as unknown when no worker answers, without failing the read", async () => {
    const r = reader(
      [
        { name: "a", url: await refusedUrl() },
        { name: "b", url: await refusedUrl() },
      ],
      { retries: 0 },
    );
    const snap = await r.read();
    expect(snap.connectors).toBeNull();
    expect(snap.connectorsError).toContain("Cannot reach");
    expect(snap.workers.map((w) => w.reachable)).toEqual([false, false]);
  });

  it("gives up on a hanging worker within the timeout", async () => {
    const hanging = await startLoopbackServer(() => undefined);
    servers.push(hanging);
    const ws = await threeWorkers();
    const r = reader([{ name: "stuck", url: hanging.url }, ...endpoints(ws.slice(1))], {
      timeoutMs: 100,
      retries: 0,
    });
    const reading = r.read();
    // The stuck worker is asked and never answers: what ends the read is the reader's own deadline.
    await hanging.received(1);
    const snap = await reading;
    expect(snap.workers[0]?.reachable).toBe(false);
    expect(snap.workers[0]?.error).toContain("No answer");
    expect(snap.workers[0]?.error).toContain("within 100 ms");
    expect(snap.connectors).toHaveLength(2);
  });

  it("sends basic auth to REST (not to metrics) and never logs or reports the credentials", async () => {
    const ws = await threeWorkers({ connectors: (res) => sendJson(res, 500, REBALANCE_ERROR) });
    const down = await refusedUrl();
    const stream = memoryStream();
    const auth = { username: "roller", password: "pw-Xy9-secret" };
    const r = reader([...endpoints(ws), { name: "down", url: down }], {
      auth,
      logger: pino({ level: "trace" }, stream),
    });
    const snap = await r.read();
    const expected = `Basic ${Buffer.from("roller:pw-Xy9-secret").toString("base64")}`;
    const w0 = ws[0];
    expect(w0?.requests.find((q) => q.path === "/")?.authorization).toBe(expected);
    expect(w0?.requests.find((q) => q.path.startsWith("/connectors"))?.authorization).toBe(expected);
    expect(w0?.requests.find((q) => q.path === "/metrics")?.authorization).toBeNull();
    const everything = `${JSON.stringify(snap)} ${stream.text()}`;
    expect(stream.text()).toContain("connect request retry");
    expect(everything).not.toContain("pw-Xy9-secret");
    expect(everything).not.toContain(expected.slice("Basic ".length));
  });

  it("rejects with the caller's reason when aborted", async () => {
    const hanging = await startLoopbackServer(() => undefined);
    servers.push(hanging);
    const r = reader([{ name: "stuck", url: hanging.url }], { timeoutMs: 5_000 });
    const controller = new AbortController();
    const reason = new Error("stop");
    const reading = r.read(controller.signal);
    // Aborted while its calls are in flight (the stuck worker has them), not before they are sent.
    await hanging.received(1);
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });
});
