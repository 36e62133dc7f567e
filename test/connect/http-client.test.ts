import { getEventListeners } from "node:events";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, type HttpClient, type HttpClientOptions } from "../../src/connect/http-client.js";
import { backoffDelay } from "../../src/connect/http-retry.js";
import { redactUrl } from "../../src/connect/url-credentials.js";
import { AppError, ErrorCode, isAppError } from "../../src/core/errors.js";
import { waitFor } from "../support/wait-for.js";
import { REBALANCE_ERROR, serverInfo } from "./connect-fixtures.js";
import {
  type LoopbackServer,
  memoryStream,
  refusedUrl,
  sendJson,
  startLoopbackServer,
  startTlsLoopbackServer,
} from "./loopback-server.js";
import { TEST_CERT, TEST_KEY } from "./tls-fixture.js";

const servers: LoopbackServer[] = [];
const clients: HttpClient[] = [];

async function server(handler: Parameters<typeof startLoopbackServer>[0]): Promise<LoopbackServer> {
  const s = await startLoopbackServer(handler);
  servers.push(s);
  return s;
}

function client(options: Partial<HttpClientOptions> = {}): HttpClient & { sleeps: number[] } {
  const sleeps: number[] = [];
  const c = createHttpClient({
    timeoutMs: 500,
    retries: 2,
    backoffBaseMs: 10,
    backoffMaxMs: 40,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  clients.push(c);
  return Object.assign(c, { sleeps });
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("http client", () => {
  it("retries a 409 (rebalance in progress) and then succeeds", async () => {
    const s = await server((_req, res, i) =>
      i === 0 ? sendJson(res, 409, REBALANCE_ERROR) : sendJson(res, 200, serverInfo("3.7.1")),
    );
    const c = client();
    const res = await c.getJson({ url: `${s.url}/` });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: "3.7.1" });
    expect(c.calls()).toBe(2);
    expect(s.requests).toHaveLength(2);
    expect(c.sleeps).toEqual([backoffDelay(0, 10, 40, () => 0.5)]);
  });

  it("fails with connect/http-status after the bounded retries when every answer is 500", async () => {
    const s = await server((_req, res) =>
      sendJson(res, 500, { error_code: 500, message: "Request timed out" }),
    );
    const c = client({ retries: 2 });
    const err = await failure(c.getJson({ url: `${s.url}/connectors` }));
    expect(err.code).toBe(ErrorCode.ConnectHttpStatus);
    expect(err.retryable).toBe(true);
    expect(err.details).toMatchObject({ status: 500, url: `${s.url}/connectors`, attempts: 3 });
    expect(err.message).toContain("Request timed out");
    expect(s.requests).toHaveLength(3);
    expect(c.calls()).toBe(3);
    expect(c.sleeps).toEqual([8, 15]);
  });

  it("does not retry a 404 and marks it not retryable", async () => {
    const s = await server((_req, res) =>
      sendJson(res, 404, { error_code: 404, message: "Connector x not found" }),
    );
    const c = client();
    const err = await failure(c.getJson({ url: `${s.url}/connectors/x/status` }));
    expect(err.code).toBe(ErrorCode.ConnectHttpStatus);
    expect(err.retryable).toBe(false);
    expect(s.requests).toHaveLength(1);
  });

  it("times out on a server that never answers, within the configured time", async () => {
    let abandoned = 0;
    const s = await server((req) => {
      req.socket.once("close", () => abandoned++);
    });
    const c = client({ timeoutMs: 150, retries: 1 });
    const err = await failure(c.getJson({ url: `${s.url}/` }));
    expect(err.code).toBe(ErrorCode.ConnectTimeout);
    expect(err.retryable).toBe(true);
    expect(err.details).toMatchObject({ url: `${s.url}/`, timeoutMs: 150 });
    expect(c.calls()).toBe(2);
    expect(s.requests).toHaveLength(2);
    // The client gave up on each attempt (closed its connection); the server never answered either.
    await waitFor("the server to see both connections closed by the client", () => abandoned === 2);
  });

  it("times out when the body stalls after the headers", async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"version":');
    });
    const c = client({ timeoutMs: 150, retries: 0 });
    const err = await failure(c.getJson({ url: `${s.url}/` }));
    expect(err.code).toBe(ErrorCode.ConnectTimeout);
    expect(err.details).toMatchObject({ phase: "body" });
  });

  it("reports malformed JSON as connect/bad-response without retrying", async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"version": "3.7.1", "commit": ');
    });
    const c = client();
    const err = await failure(c.getJson({ url: `${s.url}/` }));
    expect(err.code).toBe(ErrorCode.ConnectBadResponse);
    expect(err.retryable).toBe(false);
    expect(s.requests).toHaveLength(1);
  });

  it("reports a body cut short (connection closed before Content-Length) as connect/bad-response", async () => {
    const s = await server((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "400" });
      res.write('{"orders-sink":{"status":{"name":"orders-sink"');
      setTimeout(() => req.socket.destroy(), 10);
    });
    const c = client({ retries: 0 });
    const err = await failure(c.getJson({ url: `${s.url}/connectors?expand=status&expand=info` }));
    expect(err.code).toBe(ErrorCode.ConnectBadResponse);
    expect(err.message).toContain("cut short");
    expect(err.details).toMatchObject({ url: `${s.url}/connectors?expand=status&expand=info` });
  });

  it("refuses bodies over the size limit, declared or streamed", async () => {
    const big = "x".repeat(5000);
    const s = await server((req, res) => {
      if (req.url === "/declared") {
        res.writeHead(200, { "content-length": String(big.length) });
        res.end(big);
      } else {
        res.writeHead(200, { "transfer-encoding": "chunked" });
        for (let i = 0; i < 10; i++) res.write(big.slice(0, 500));
        res.end();
      }
    });
    const c = client({ maxBodyBytes: 1000 });
    for (const path of ["/declared", "/chunked"]) {
      const err = await failure(c.send({ url: `${s.url}${path}` }));
      expect(err.code).toBe(ErrorCode.ConnectBadResponse);
      expect(err.message).toContain("too large");
    }
  });

  it("reports a refused connection as connect/unreachable after retrying", async () => {
    const url = await refusedUrl();
    const c = client({ retries: 2 });
    const err = await failure(c.getJson({ url: `${url}/` }));
    expect(err.code).toBe(ErrorCode.ConnectUnreachable);
    expect(err.retryable).toBe(true);
    expect(err.details).toMatchObject({ url: `${url}/`, reason: "ECONNREFUSED" });
    expect(c.calls()).toBe(3);
  });

  it("returns accepted non-2xx statuses as values (health 503)", async () => {
    const s = await server((_req, res) => sendJson(res, 503, { status: "starting", message: "…" }));
    const c = client();
    const res = await c.getJson({ url: `${s.url}/health`, accept: [200, 500, 503] });
    expect(res.status).toBe(503);
    expect(c.calls()).toBe(1);
  });

  it("sends basic auth and never puts the credentials in errors or logs", async () => {
    const s = await server((_req, res) => sendJson(res, 500, REBALANCE_ERROR));
    const stream = memoryStream();
    const c = client({
      auth: { username: "connect-admin", password: "s3cr3t-Pa55" },
      retries: 1,
      logger: pino({ level: "trace" }, stream),
    });
    const err = await failure(c.getJson({ url: `${s.url}/connectors` }));
    const encoded = Buffer.from("connect-admin:s3cr3t-Pa55").toString("base64");
    expect(s.requests[0]?.authorization).toBe(`Basic ${encoded}`);
    const seen = `${err.message} ${JSON.stringify(err.details)} ${String(err.stack)} ${stream.text()}`;
    expect(stream.text()).toContain("connect request retry");
    expect(seen).not.toContain("s3cr3t-Pa55");
    expect(seen).not.toContain(encoded);
  });

  it("takes credentials from the URL when no auth option is set, and redacts them", async () => {
    const s = await server((_req, res) => sendJson(res, 404, {}));
    const c = client();
    const withCreds = s.url.replace("http://", "http://ops:hunter2@");
    const err = await failure(c.getJson({ url: `${withCreds}/` }));
    expect(s.requests[0]?.authorization).toBe(`Basic ${Buffer.from("ops:hunter2").toString("base64")}`);
    expect(`${err.message} ${JSON.stringify(err.details)}`).not.toContain("hunter2");
    expect(redactUrl(`${withCreds}/x`)).toBe(`${s.url}/x`);
  });

  it("does not send auth when a request opts out (metrics endpoints)", async () => {
    const s = await server((_req, res) => res.end("up 1\n"));
    const c = client({ auth: { username: "u", password: "p" } });
    await c.send({ url: `${s.url}/metrics`, withAuth: false });
    expect(s.requests[0]?.authorization).toBeNull();
  });

  it("rejects with the caller's reason when aborted", async () => {
    const s = await server(() => undefined);
    const c = client({ timeoutMs: 5_000 });
    const controller = new AbortController();
    const reason = new Error("rollout aborted");
    const sent = c.send({ url: `${s.url}/`, signal: controller.signal });
    await waitFor("the request to reach the server", () => s.requests.length === 1);
    controller.abort(reason);
    await expect(sent).rejects.toBe(reason);
  });

  it("rejects with the caller's reason when aborted during a backoff (real timer)", async () => {
    const url = await refusedUrl();
    let backingOff = false;
    const c = createHttpClient({
      timeoutMs: 500,
      retries: 5,
      backoffBaseMs: 5_000,
      backoffMaxMs: 5_000,
      // Drawn for the backoff's jitter, right before the (real) backoff timer starts.
      random: () => {
        backingOff = true;
        return 0.5;
      },
    });
    clients.push(c);
    const controller = new AbortController();
    const reason = new Error("rollout aborted");
    const sent = c.send({ url: `${url}/`, signal: controller.signal });
    await waitFor("the first attempt to fail and the backoff to start", () => backingOff);
    controller.abort(reason);
    await expect(sent).rejects.toBe(reason);
    expect(c.calls()).toBe(1);
  });

  it("refuses requests after close", async () => {
    const c = client();
    await c.close();
    const err = await failure(c.send({ url: "http://127.0.0.1:1/" }));
    expect(isAppError(err, ErrorCode.Internal)).toBe(true);
  });

  it("verifies TLS with the configured CA, refuses an unknown certificate at once, or skips verification", async () => {
    const s = await startTlsLoopbackServer(TEST_CERT, TEST_KEY, (_req, res) =>
      sendJson(res, 200, serverInfo("3.9.0")),
    );
    servers.push(s);
    const untrusted = client({ retries: 2 });
    const err = await failure(untrusted.getJson({ url: `${s.url}/` }));
    expect(err.code).toBe(ErrorCode.ConnectUnreachable);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("certificate");
    expect(untrusted.calls()).toBe(1);
    const withCa = await client({ tls: { ca: TEST_CERT } }).getJson({ url: `${s.url}/` });
    expect(withCa.json).toMatchObject({ version: "3.9.0" });
    const insecure = await client({ tls: { insecureSkipVerify: true } }).getJson({ url: `${s.url}/` });
    expect(insecure.status).toBe(200);
  });

  it("keeps backoff within its cap", () => {
    for (const r of [0, 0.3, 0.999]) {
      for (let attempt = 0; attempt < 10; attempt++) {
        const ms = backoffDelay(attempt, 100, 1_000, () => r);
        const cap = Math.min(1_000, 100 * 2 ** attempt);
        expect(ms).toBeGreaterThanOrEqual(cap / 2);
        expect(ms).toBeLessThanOrEqual(cap);
      }
    }
  });
});

describe("http client: one signal shared by many requests", () => {
  it("adds one abort listener to the caller's signal however many requests are in flight", async () => {
    const held: import("node:http").ServerResponse[] = [];
    let arrived!: () => void;
    const allArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const s = await server((_req, res) => {
      held.push(res);
      if (held.length === 24) arrived();
    });
    const c = client({ timeoutMs: 10_000 });
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const inFlight = Array.from({ length: 24 }, (_, i) =>
        c.send({ url: `${s.url}/r/${i}`, signal: controller.signal }),
      );
      await allArrived;
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
      for (const res of held) sendJson(res, 200, serverInfo("3.7.1"));
      await Promise.all(inFlight);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("still aborts every request sharing the signal", async () => {
    let count = 0;
    let arrived!: () => void;
    const allArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const s = await server(() => {
      count++;
      if (count === 12) arrived();
    });
    const c = client({ timeoutMs: 10_000 });
    const controller = new AbortController();
    const inFlight = Array.from({ length: 12 }, (_, i) =>
      c.send({ url: `${s.url}/r/${i}`, signal: controller.signal }).catch((e: unknown) => e),
    );
    await allArrived;
    const reason = new Error("stop");
    controller.abort(reason);
    expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 12 }, () => reason));
  });
});
