import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCommand } from "../../../../src/chat/command-grammar.js";
import { type Harness, startHarness } from "../harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** Deterministic generator of command texts that the grammar rejects (mulberry32). */
function malformedTexts(count: number, seed: number): string[] {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words = [
    "sim",
    "plan",
    "status",
    "abort",
    "pause",
    "resume",
    "history",
    "help",
    "rollout",
    "restart",
    "v3.7",
    "3.x",
    "--pace",
    "fast",
    "-x",
    "--pace=",
    "SIM!",
    "_bad",
    "…",
    "😀",
    "<@U1>",
    "&",
    "`rm`",
    "\u0000",
    "a".repeat(70),
    "v3..7",
    `3.7.1-${"x".repeat(40)}`,
  ];
  const out: string[] = [];
  while (out.length < count) {
    const n = 1 + Math.floor(random() * 5);
    let text = Array.from({ length: n }, () => pick(words)).join(pick([" ", "  ", "\t"]));
    if (random() < 0.05) text = "x ".repeat(120);
    if (parseCommand(text).kind === "error") out.push(text);
  }
  return out;
}

describe("malformed command texts", () => {
  it("200 generated malformed texts: an ephemeral error each, no crash, no job", async () => {
    const texts = malformedTexts(200, 42);
    expect(new Set(texts).size).toBeGreaterThan(100);
    for (const text of texts) {
      const ack = await h.command(text);
      expect(ack.status, text).toBe(200);
      expect(ack.json(), text).toMatchObject({ response_type: "ephemeral" });
      expect(ack.text, text).toContain("did not parse");
    }
    expect(h.fake.calls("chat.postMessage")).toHaveLength(0);
    expect(h.replicas[0]?.runtime.service.running()).toHaveLength(0);
    expect(await h.replicas[0]?.redis.keys(`${h.prefix}*`)).toEqual([]);
    expect((await h.get("/healthz")).status).toBe(200);
  });
});
