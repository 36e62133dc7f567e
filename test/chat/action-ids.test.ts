import { describe, expect, it } from "vitest";
import {
  ActionId,
  decodeActionValue,
  encodeActionValue,
  MAX_ACTION_VALUE_LENGTH,
} from "../../src/chat/action-ids.js";

describe("action ids", () => {
  it("are unique, namespaced and within Block Kit's limit", () => {
    const ids = Object.values(ActionId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id.startsWith("connect-roll.")).toBe(true);
      expect(id.length).toBeLessThanOrEqual(255);
    }
  });
});

describe("action value codec", () => {
  it("round-trips job and approval ids", () => {
    const value = { jobId: "job-01HZX3", approvalId: "eager-window:3" };
    expect(decodeActionValue(encodeActionValue(value))).toEqual({ kind: "ok", value });
    expect(decodeActionValue(encodeActionValue({ jobId: "j1" }))).toEqual({
      kind: "ok",
      value: { jobId: "j1" },
    });
  });

  it("stays within 2000 characters", () => {
    const encoded = encodeActionValue({ jobId: "j".repeat(200), approvalId: "a".repeat(200) });
    expect(encoded.length).toBeLessThanOrEqual(MAX_ACTION_VALUE_LENGTH);
  });

  it("refuses to encode ids that could not decode", () => {
    expect(() => encodeActionValue({ jobId: "" })).toThrow(TypeError);
    expect(() => encodeActionValue({ jobId: "a b" })).toThrow(/invalid action value/);
    expect(() => encodeActionValue({ jobId: "j".repeat(201) })).toThrow(TypeError);
  });

  it.each([
    ["", /empty/],
    ["not json", /not JSON/],
    ["x".repeat(2001), /longer than 2000/],
    ['{"v":2,"jobId":"j"}', /v/],
    ['{"v":1}', /jobId/],
    ['{"v":1,"jobId":"j","extra":true}', /extra/],
    ['{"v":1,"jobId":"<!channel>"}', /jobId/],
    ["[1,2]", /expected object/i],
  ])("rejects %j", (text, message) => {
    const result = decodeActionValue(text);
    expect(result.kind).toBe("error");
    if (result.kind === "error") expect(result.message).toMatch(message);
  });
});
