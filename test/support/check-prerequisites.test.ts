import { describe, expect, it } from "vitest";
import {
  missingPrerequisites,
  prerequisitesMessage,
  projectNeeds,
  selectsBrowserTest,
} from "./check-prerequisites.js";

/** npm test checks its prerequisites up front with one clear message. */

describe("test prerequisites", () => {
  it("a Redis that does not answer and a missing Chromium: one message naming both and what to do", async () => {
    const problems = await missingPrerequisites({
      env: { REDIS_URL: "redis://127.0.0.1:1", CHROMIUM_PATH: "/nonexistent/chromium" },
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:1 does not answer \(connect ECONNREFUSED/);
    expect(problems[0]).toContain("or set REDIS_URL");
    expect(problems[1]).toBe(
      "Chromium is not at /nonexistent/chromium (the demo's browser test drives it): apt-get install chromium, or set CHROMIUM_PATH",
    );
    expect(prerequisitesMessage(problems).split("\n")).toHaveLength(4);
  });

  it("the real Redis answers (the default URL, or REDIS_URL)", async () => {
    const problems = await missingPrerequisites({ env: process.env, browser: false });
    expect(problems).toEqual([]);
  });

  it("CHROMIUM_PATH points elsewhere", async () => {
    const seen: string[] = [];
    await missingPrerequisites({
      env: { CHROMIUM_PATH: "/opt/chrome/chrome" },
      pingRedis: async () => undefined,
      isExecutable: (p) => {
        seen.push(p);
        return true;
      },
    });
    expect(seen).toEqual(["/opt/chrome/chrome"]);
  });

  it("sshd is checked when the run includes the VM/ssh test", async () => {
    const seen: string[] = [];
    const problems = await missingPrerequisites({
      env: {},
      browser: false,
      sshd: true,
      pingRedis: async () => undefined,
      isExecutable: (p) => {
        seen.push(p);
        return false;
      },
    });
    expect(seen).toEqual(["/usr/sbin/sshd"]);
    expect(problems).toEqual([
      "/usr/sbin/sshd is missing (the VM/ssh test starts its own sshd on a loopback port): apt-get install openssh-server",
    ]);
  });

  it.each([
    [["node", "/x/node_modules/vitest/vitest.mjs", "run"], true],
    [["node", "/x/node_modules/.bin/vitest", "run", "test/sandbox"], true],
    [["node", "/x/node_modules/.bin/vitest", "run", "demo-browser"], true],
    [["node", "/x/node_modules/.bin/vitest", "run", "test/cli/x.test.ts", "test/config"], false],
    [["node", "/x/node_modules/.bin/vitest", "run", "--config", "vitest.config.ts", "test/cli"], false],
  ])("browser needed for %j: %s", (argv, expected) => {
    expect(selectsBrowserTest(argv)).toBe(expected);
  });

  it.each([
    ["unit", ["node", "/x/node_modules/.bin/vitest", "run"], { browser: false, sshd: false }],
    ["redis", ["node", "/x/node_modules/.bin/vitest", "run"], { browser: false, sshd: false }],
    ["e2e", ["node", "/x/node_modules/.bin/vitest", "run"], { browser: true, sshd: true }],
    [
      "e2e",
      ["node", "/x/node_modules/.bin/vitest", "run", "--project", "e2e"],
      { browser: true, sshd: true },
    ],
    ["e2e", ["node", "/x/node_modules/.bin/vitest", "run", "test/deploy"], { browser: false, sshd: true }],
    ["e2e", ["node", "/x/node_modules/.bin/vitest", "run", "test/cli"], { browser: false, sshd: false }],
  ])("the %s project, %j, needs %j besides Redis", (project, argv, needs) => {
    expect(projectNeeds(project, argv)).toEqual(needs);
  });
});

describe("vitest with the global setup", () => {
  it("stops before any test with the message when Redis does not answer", async () => {
    const { spawnCli } = await import("../cli/support/spawn-cli.js");
    const p = spawnCli(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "test/jobs/redis/redis-job-store.test.ts"],
      {
        REDIS_URL: "redis://127.0.0.1:1",
      },
    );
    try {
      const { code } = await p.exited;
      expect(code).not.toBe(0);
      const output = p.out() + p.err();
      expect(output).toContain("npm test cannot run on this machine:");
      expect(output).toContain("Redis at redis://127.0.0.1:1 does not answer");
      expect(output).not.toContain("Chromium");
      expect(output).not.toMatch(/redis-job-store\.test\.ts.*✓/);
    } finally {
      p.stop();
    }
  }, 60_000);

  it("the unit project needs neither Redis nor Chromium", async () => {
    const { spawnCli } = await import("../cli/support/spawn-cli.js");
    const p = spawnCli(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "--project", "unit", "test/config/load-config.test.ts"],
      { REDIS_URL: "redis://127.0.0.1:1", CHROMIUM_PATH: "/nonexistent/chromium" },
    );
    try {
      const { code } = await p.exited;
      const output = p.out() + p.err();
      expect(output).not.toContain("cannot run on this machine");
      expect(output).toMatch(/load-config\.test\.ts/);
      expect(code).toBe(0);
    } finally {
      p.stop();
    }
  }, 60_000);
});
