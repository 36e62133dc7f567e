import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionId, FleetActionId } from "../../src/chat/action-ids.js";
import { type RunningDemo, startDemo } from "../../src/demo/demo.js";
import { APPROVER, OUTSIDER, REQUESTER } from "../../src/demo/demo-config.js";
import type { ParentView, SandboxSnapshot } from "../../src/sandbox/sandbox-snapshot.js";

/** The sandbox server's endpoints against the real bot (no browser): page files, SSE, /command, /click, response_url. */
let demo: RunningDemo;
beforeAll(async () => {
  demo = await startDemo({
    port: 0,
    scenario: "eager-upgrade",
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
});
afterAll(async () => {
  await demo?.close();
});

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${demo.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};
const state = async () => (await (await fetch(`${demo.url}/state`)).json()) as SandboxSnapshot;

/** Reads the SSE stream until a snapshot satisfies `probe`. */
async function untilEvent<T>(probe: (s: SandboxSnapshot) => T | undefined, timeoutMs = 15_000): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(`${demo.url}/events`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error("no body");
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the event stream ended");
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        const data = event.split("\n").find((line) => line.startsWith("data: "));
        if (data === undefined) continue;
        const found = probe(JSON.parse(data.slice("data: ".length)) as SandboxSnapshot);
        if (found !== undefined) {
          await reader.cancel();
          return found;
        }
      }
    }
  } catch (err) {
    if (controller.signal.aborted) throw new Error(`no matching event within ${timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function approveButton(parent: ParentView): { ts: string; value: string } | undefined {
  for (const reply of parent.replies) {
    for (const block of reply.blocks as {
      type?: string;
      elements?: { action_id?: string; value?: string }[];
    }[]) {
      const button = block.elements?.find((e) => e.action_id === ActionId.Approve);
      if (block.type === "actions" && button?.value !== undefined)
        return { ts: reply.ts, value: button.value };
    }
  }
  return undefined;
}

describe("sandbox server", () => {
  it("serves the page and its assets locally, with nothing from the internet", async () => {
    for (const [path, type] of [
      ["/", "text/html"],
      ["/app.js", "text/javascript"],
      ["/blocks.js", "text/javascript"],
      ["/cluster.js", "text/javascript"],
      ["/messages.js", "text/javascript"],
      ["/page-state.js", "text/javascript"],
      ["/style.css", "text/css"],
      ["/cluster.css", "text/css"],
    ] as const) {
      const response = await fetch(`${demo.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain(type);
      expect(await response.text()).not.toMatch(/(src|href)="https?:|url\(https?:|import .* from "https?:/);
    }
    expect((await fetch(`${demo.url}/nope`)).status).toBe(404);
  });

  it("pushes the cluster over SSE; /command reaches the bot and the thread arrives over SSE; /click reaches it too", async () => {
    const first = await untilEvent((s) => s);
    expect(first.cluster.workers).toHaveLength(6);
    expect(first.cluster.workers.find((w) => w.name === "worker-2")?.version).toBe("2.2.2");
    expect(first.users.map((u) => u.id)).toEqual([REQUESTER, APPROVER, OUTSIDER]);

    const wrong = await post("/command", { user: REQUESTER, text: "hello" });
    expect(wrong.status).toBe(400);

    const typed = await post("/command", { user: REQUESTER, text: "/connect-roll demo v3.7" });
    expect(typed).toMatchObject({ status: 200, json: { ok: true } });
    const prompt = await untilEvent((s) => {
      const parent = s.messages[0];
      const button = parent === undefined ? undefined : approveButton(parent);
      return parent !== undefined && button !== undefined ? { parent, button, s } : undefined;
    });
    expect(prompt.parent.text).toContain("demo");
    const acks = prompt.s.ephemerals.filter((e) => e.user === REQUESTER).map((e) => e.text);
    expect(acks.some((t) => t.includes("Starting the rollout of demo"))).toBe(true);

    const click = await post("/click", {
      user: OUTSIDER,
      messageTs: prompt.button.ts,
      actionId: ActionId.Approve,
      value: prompt.button.value,
    });
    expect(click.status).toBe(200);
    const refusal = await untilEvent((s) => s.ephemerals.find((e) => e.user === OUTSIDER));
    expect(refusal.text).toContain("may not answer");
    expect(refusal.threadTs).toBe(prompt.parent.ts);
    const after = await state();
    expect(after.messages[0] && approveButton(after.messages[0])).toEqual(prompt.button);
    expect(await post("/click", { user: OUTSIDER })).toMatchObject({ status: 400 });
  });

  it("/home sends app_home_opened to the bot, which publishes the person's Home tab into the snapshot", async () => {
    expect(await post("/home", {})).toMatchObject({ status: 400 });
    const opened = await post("/home", { user: APPROVER });
    expect(opened).toMatchObject({ status: 200, json: { ok: true } });
    const home = await untilEvent((s) => s.homes[APPROVER]);
    const text = JSON.stringify(home);
    expect(text).toContain("*demo*");
    expect(text).toContain("4 clusters · 1 rollout in progress");
    expect(text).toContain("awaiting approval");
    expect((await state()).homes[REQUESTER]).toBeUndefined();
  });

  it("records what the bot posts to a response_url as an ephemeral of that user", async () => {
    const answered = await post(`/response/${APPROVER}`, {
      response_type: "ephemeral",
      text: "hello from response_url",
    });
    expect(answered.status).toBe(200);
    const s = await state();
    expect(s.ephemerals.some((e) => e.user === APPROVER && e.text === "hello from response_url")).toBe(true);
    expect((await post(`/response/${APPROVER}`, {})).status).toBe(400);
  });

  it("rolls the sandbox's fleet of three simulated clusters: its thread, stage 1, then the prompt for stage 2", async () => {
    const typed = await post("/command", { user: REQUESTER, text: "/connect-roll fleet demo-fleet v3.7" });
    expect(typed).toMatchObject({ status: 200, json: { ok: true } });
    const prompt = await untilEvent((s) => {
      const parent = s.messages.find((m) => m.text.includes("fleet demo-fleet run fl-"));
      const button = parent?.replies.some((r) =>
        JSON.stringify(r.blocks).includes(FleetActionId.ApproveStage),
      );
      return parent !== undefined && button === true ? parent : undefined;
    }, 90_000);
    expect(JSON.stringify(prompt.blocks)).toContain("stage 1/2 succeeded: demo-staging succeeded (job cr-");
    const replies = prompt.replies.map((r) => r.text).join("\n");
    expect(replies).toContain("stage 1/2 (demo-staging): soaking 10s before the next stage");
    expect(replies).toMatch(/demo-staging: rolling \(job cr-[0-9a-f]{8}\)/);
  }, 120_000);
});
