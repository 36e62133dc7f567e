import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { plainMrkdwn, renderMessageText } from "../../src/demo/demo-thread-printer.js";

describe("connect-roll demo (CLI)", () => {
  it("`tsx src/cli.ts demo --port 0` prints the page's URL, serves it, and stops cleanly on SIGINT", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "demo", "--port", "0"], {
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no URL within 20 s; stdout: ${out}; stderr: ${err}`)),
        20_000,
      );
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const found = /open (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        }
      });
    });
    expect(out).toContain("Rolling upgrade 3.6.1 → 3.7");
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("connect-roll sandbox");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  }, 30_000);

  it("refuses an unknown scenario with a usage error", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "demo", "--scenario", "nope"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('unknown scenario "nope"');
  }, 20_000);
});

describe("the terminal's plain-text rendering", () => {
  it("renders header, section, context, actions and divider blocks, mentions, links and entities", () => {
    const text = renderMessageText(
      {
        text: "fallback",
        blocks: [
          { type: "header", text: { type: "plain_text", text: "Rollout" } },
          {
            type: "section",
            text: { type: "mrkdwn", text: "*Asked by* <@U1> &lt;now&gt; &amp; <https://x.test|the docs>" },
          },
          { type: "divider" },
          {
            type: "context",
            elements: [
              { type: "mrkdwn", text: "demo" },
              { type: "mrkdwn", text: "<!subteam^S1>" },
            ],
          },
          { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Approve" } }] },
        ],
      },
      { U1: "requester", S1: "approvers" },
    );
    expect(text.split("\n")).toEqual([
      "ROLLOUT",
      "*Asked by* @requester <now> & the docs (https://x.test)",
      "────────────",
      "demo · @approvers",
      "[ Approve ]",
    ]);
    expect(plainMrkdwn("no blocks <#C1>", { C1: "general" })).toBe("no blocks #general");
  });
});
