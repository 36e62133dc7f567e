import { WebSocket } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";

let fake: FakeSlackWebApi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function call(
  f: FakeSlackWebApi,
  method: string,
  token: string,
  body: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(`${f.apiUrl}${method}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** A raw client: collects text messages; `next()` awaits the next one. */
function connect(url: string) {
  const ws = new WebSocket(url);
  const inbox: Record<string, unknown>[] = [];
  const waiters: ((m: Record<string, unknown>) => void)[] = [];
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  return {
    ws,
    closed,
    next: () =>
      new Promise<Record<string, unknown>>((resolve) => {
        const queued = inbox.shift();
        if (queued) resolve(queued);
        else waiters.push(resolve);
      }),
  };
}

describe("the fake's Socket Mode side", () => {
  it("apps.connections.open needs the app-level token; the bot token is refused there and the app token elsewhere", async () => {
    fake = await startFakeSlackWebApi({ botToken: "xoxb-1", appToken: "xapp-1" });
    expect(await call(fake, "apps.connections.open", "xoxb-1")).toEqual({ ok: false, error: "invalid_auth" });
    expect(await call(fake, "auth.test", "xapp-1")).toEqual({ ok: false, error: "not_allowed_token_type" });
    const open = await call(fake, "apps.connections.open", "xapp-1");
    expect(open.ok).toBe(true);
    expect(String(open.url)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/);
  });

  it("says hello, delivers envelopes with their ids, takes acks by envelope_id, and a ticket opens one connection only", async () => {
    fake = await startFakeSlackWebApi({ appToken: "xapp-1" });
    const url = String((await call(fake, "apps.connections.open", "xapp-1")).url);
    const client = connect(url);
    expect((await client.next()).type).toBe("hello");
    const acked = fake.socketMode.deliver("slash_commands", { command: "/connect-roll", text: "help" });
    const envelope = await client.next();
    expect(envelope).toMatchObject({
      type: "slash_commands",
      accepts_response_payload: true,
      payload: { command: "/connect-roll", text: "help" },
    });
    client.ws.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { text: "usage" } }));
    expect(await acked).toMatchObject({ payload: { text: "usage" }, late: false });

    const again = connect(url);
    expect(await again.closed).not.toBe(1000);
    expect(fake.socketMode.connectionsOpened()).toBe(1);

    fake.socketMode.requestRefresh();
    expect(await client.next()).toMatchObject({ type: "disconnect", reason: "refresh_requested" });
    client.ws.close(1000);
    expect(await client.closed).toBe(1000);
  });

  it("an envelope sent while nobody is connected waits for the next connection; an unacked one is sent again there", async () => {
    fake = await startFakeSlackWebApi({ appToken: "xapp-1" });
    const queued = fake.socketMode.deliver("interactive", { type: "block_actions" });
    const first = connect(String((await call(fake, "apps.connections.open", "xapp-1")).url));
    expect((await first.next()).type).toBe("hello");
    const envelope = await first.next();
    expect(envelope.type).toBe("interactive");
    first.ws.close(1000);
    await first.closed;
    const second = connect(String((await call(fake, "apps.connections.open", "xapp-1")).url));
    expect((await second.next()).type).toBe("hello");
    const redelivered = await second.next();
    expect(redelivered.envelope_id).toBe(envelope.envelope_id);
    second.ws.send(JSON.stringify({ envelope_id: redelivered.envelope_id }));
    expect((await queued).payload).toBeNull();
    expect(fake.socketMode.envelopes()[0]).toMatchObject({ deliveries: 2, acks: 1 });
    second.ws.close(1000);
    await second.closed;
  });
});
