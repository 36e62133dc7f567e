import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL, type Harness, OTHER_CHANNEL, STRANGER, startHarness } from "../harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe("/connect-roll refusals: an ephemeral ack that says what to do, nothing started", () => {
  it.each([
    ["unknown cluster, with the closest names", "simm v3.7", {}, ["Unknown cluster 'simm'", "`sim`"]],
    ["malformed version", "sim 3.x", {}, ["did not parse", "neither a version"]],
    ["version the cluster does not accept", "sim 3.7.1-rc1", {}, ["cannot be used"]],
    ["channel not allowed", "sim v3.7", { channel: OTHER_CHANNEL }, ["not allowed", `<#${CHANNEL}>`]],
    ["user not allowed", "sim v3.7", { user: STRANGER }, ["not in the requesters list"]],
    ["help", "help", {}, ["/connect-roll"]],
  ] as const)("%s", async (_name, text, options, expected) => {
    const ack = await h.command(text, options);
    expect(ack.status).toBe(200);
    expect(ack.json()).toMatchObject({ response_type: "ephemeral" });
    for (const part of expected) expect(ack.text).toContain(part);
    expect(h.fake.calls("chat.postMessage")).toHaveLength(0);
  });

  it("a locked cluster: who holds it, since when, a link to its thread", async () => {
    await h.command("sim restart");
    const parent = await h.waitFor(() => h.parents()[0], 5000, "first parent");
    const ack = await h.command("sim v3.7");
    expect(ack.text).toContain("locked by another rollout");
    expect(ack.text).toContain(`p${parent.ts.replace(".", "")}`);
    expect(ack.text).toContain("UTC");
    expect(h.parents()).toHaveLength(1);
    await h.waitFor(
      () => h.replicas[0]?.runtime.service.running().length === 0,
      20_000,
      "first rollout done",
    );
  });

  it("status and history answer ephemerally", async () => {
    expect((await h.command("status")).json()).toMatchObject({ response_type: "ephemeral" });
    const history = await h.command("history sim");
    expect(history.text).toContain("restart");
  });
});

describe("refusals that need another setup", () => {
  it("outside a change window", async () => {
    const closed = await startHarness({
      changeWindows: [{ days: ["sat"], start: "03:00", end: "03:01", timezone: "UTC" }],
    });
    try {
      const ack = await closed.command("sim v3.7");
      expect(ack.text).toContain("outside its change window");
      expect(ack.text).toContain("Sat 03:00 UTC");
    } finally {
      await closed.close();
    }
  });

  it("Redis unreachable", async () => {
    const down = await startHarness();
    try {
      down.replicas[0]?.redis.disconnect();
      const ack = await down.command("sim v3.7");
      expect(ack.status).toBe(200);
      expect(ack.text).toContain("cannot reach its Redis store");
      expect((await down.get("/readyz")).status).toBe(503);
      expect((await down.get("/healthz")).status).toBe(200);
      expect(down.fake.calls("chat.postMessage")).toHaveLength(0);
    } finally {
      await down.close();
    }
  });
});
