import { describe, expect, it } from "vitest";
import { renderHelp } from "../../../src/chat/views/render-help.js";
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
      "status <cluster> --chart",
      "abort <cluster>",
      "pause <cluster>",
      "resume <cluster>",
      "history <cluster>",
      "fleet <fleet> <version|restart>",
      "fleet status <fleet> [--chart]",
      "fleet abort <fleet>",
      "help",
    ]) {
      expect(text).toContain(usage.replace(/</g, "&lt;").replace(/>/g, "&gt;"));
    }
    expect(text).toMatchSnapshot();
  });
});
