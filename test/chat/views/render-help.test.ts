import { describe, expect, it } from "vitest";
import { renderHelp, renderRefusal } from "../../../src/chat/views/render-help.js";
import { blockText, limitViolations } from "./block-text.js";

describe("renderHelp", () => {
  it("shows the grammar", () => {
    const m = renderHelp();
    expect(limitViolations(m)).toEqual([]);
    const text = blockText(m);
    for (const usage of [
      "<cluster> <version|restart>",
      "plan <cluster>",
      "status [cluster]",
      "abort <cluster>",
      "pause <cluster>",
      "resume <cluster>",
      "history <cluster>",
      "help",
    ]) {
      expect(text).toContain(usage.replace(/</g, "&lt;").replace(/>/g, "&gt;"));
    }
    expect(text).toMatchSnapshot();
  });
});

describe("renderRefusal", () => {
  it("says why and what to do, escaped", () => {
    const m = renderRefusal("prod-cluster is locked by <@U9>", [
      "A rollout to 3.7.1 started by U9 at 14:00 UTC is running.",
      "Wait for it, or ask U9 to `/connect-roll abort prod-cluster`.",
    ]);
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatchSnapshot();
  });

  it("bounds many long lines", () => {
    const m = renderRefusal(
      "x".repeat(500),
      Array.from({ length: 50 }, () => "y".repeat(900)),
    );
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatch(/\+\d+ more/);
  });
});
