import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { renderStepReply } from "../../src/chat/views/render-step-reply.js";
import { configCheckCommand } from "../../src/cli/commands/config-check.js";
import { runCli } from "../../src/cli/main.js";
import { planNotes } from "../../src/cli/plan-notes.js";
import { renderEventLine } from "../../src/cli/render-event-line.js";
import type { Finding, Plan } from "../../src/core/plan/plan-types.js";
import type { PendingApproval } from "../../src/core/rollout/approval-types.js";
import type { StepMeasurements } from "../../src/core/rollout/rollout-state.js";
import { approvalPrompt } from "../../src/wording/approval-text.js";
import { blockText } from "../chat/views/block-text.js";
import { aRollout, stepStart } from "../chat/views/rollout-state-builder.js";
import { captureIo } from "../support/capture-io.js";

/**
 * The words for a count, as the terminal and the Slack thread print them: 0, 1 and many, through the real renderers.
 * "0 tasks", "1 task", "5 tasks"; never "1 tasks" or "task(s)".
 */

const NO_MEASUREMENTS: StepMeasurements = {
  restartMs: 3_000,
  settleMs: 5_000,
  tasksMoved: 0,
  taskDowntimeMs: 0,
  rebalances: 0,
  eagerRebalances: 0,
  polls: 4,
};

function planOf(workers: number, eagerWindows: number, flowing: number): Plan {
  const windows = Array.from({ length: eagerWindows }, (_, i) => ({ fromStep: i + 1, toStep: i + 1 }));
  const plan = aRollout({ workers, eagerWindows: windows }).build().plan;
  if (plan === null) throw new Error("the builder made no plan");
  return { ...plan, dataFlow: { kind: "visible", flowing, idle: [] } };
}

describe("the terminal's lines: connect-roll run", () => {
  it.each([
    [1, 0, 0, "plan: 1 step: connect-1 (leader); data flow: 0 tasks flowing, 0 idle"],
    [
      5,
      1,
      1,
      "plan: 5 steps: connect-1 → connect-2 → connect-3 → connect-4 → connect-5 (leader); eager window: step 1; data flow: 1 task flowing, 0 idle",
    ],
    [
      5,
      2,
      5,
      "plan: 5 steps: connect-1 → connect-2 → connect-3 → connect-4 → connect-5 (leader); eager windows: step 1, step 2; data flow: 5 tasks flowing, 0 idle",
    ],
  ])("a plan: steps %d, eager windows %d, flowing tasks %d", (workers, eager, flowing, line) => {
    expect(
      renderEventLine({ kind: "rollout-planned", plan: planOf(workers, eager, flowing) }, new Map()),
    ).toBe(line);
  });

  it.each([
    [0, 0, "step 2: w2 settled in 5s, 0 tasks moved, downtime 0 task-seconds"],
    [1, 1_000, "step 2: w2 settled in 5s, 1 task moved, downtime 1 task-second"],
    [5, 1_234_000, "step 2: w2 settled in 5s, 5 tasks moved, downtime 1,234 task-seconds"],
  ])("a settled step, tasks moved: %d", (tasksMoved, taskDowntimeMs, line) => {
    const measurements = { ...NO_MEASUREMENTS, tasksMoved, taskDowntimeMs };
    expect(
      renderEventLine(
        { kind: "step-settled", step: 2, worker: "w2", dataFlow: null, measurements },
        new Map(),
      ),
    ).toBe(line);
  });

  it("an executor's multi-line output sits indented under its step line", () => {
    const detail = "Restart command for w2 exited 0 in 1.2s.\nstdout (tail):\nrolled w2\n\ndone\n";
    expect(renderEventLine({ kind: "restart-issued", step: 2, worker: "w2", detail }, new Map())).toBe(
      [
        "step 2: w2: Restart command for w2 exited 0 in 1.2s.",
        "    stdout (tail):",
        "    rolled w2",
        "",
        "    done",
      ].join("\n"),
    );
  });

  it("a failed restart's multi-line error sits indented under its approval detail", () => {
    const approval: PendingApproval = {
      id: "job-1:a1",
      kind: "restart-failed",
      step: 2,
      options: ["approve", "abort"],
      askedAt: 0,
      facts: {
        kind: "restart-failed",
        worker: "w2",
        mayHaveRun: false,
        error: "Restart command for w2 exited 3.\nstderr (tail):\nno such pod",
      },
    };
    expect(renderEventLine({ kind: "approval-requested", approval }, new Map())).toBe(
      [
        "approval needed (restart-failed): Restarting w2 failed. Retry the restart?",
        "    Restart command for w2 exited 3.",
        "      stderr (tail):",
        "      no such pod",
      ].join("\n"),
    );
  });
});

describe("the thread's step reply", () => {
  it.each([
    [
      0,
      0,
      "✅ settled in 5m02s, 0 tasks moved, downtime 0 task-seconds",
      "0 tasks moved | downtime 0 task-seconds",
    ],
    [
      1,
      1_000,
      "✅ settled in 5m02s, 1 task moved, downtime 1 task-second",
      "1 task moved | downtime 1 task-second",
    ],
    [
      5,
      19_000,
      "✅ settled in 5m02s, 5 tasks moved, downtime 19 task-seconds",
      "5 tasks moved | downtime 19 task-seconds",
    ],
  ])("a settled step, tasks moved: %d", (tasksMoved, taskDowntimeMs, status, context) => {
    const state = aRollout().settled(1, { tasksMoved, taskDowntimeMs, rebalances: 0 }).build();
    const step = state.steps[0];
    if (step === undefined) throw new Error("no step 1");
    const text = blockText(renderStepReply(state, step, stepStart(2)));
    expect(text).toContain(status);
    expect(text).toContain(context);
  });
});

describe("the approval prompts", () => {
  const finding: Finding = { severity: "block", code: "failed-tasks", message: "1 FAILED before the start." };
  it.each([
    [0, "The preflight found 0 blocking problems on prod. Start anyway?"],
    [1, "The preflight found 1 blocking problem on prod. Start anyway?"],
    [5, "The preflight found 5 blocking problems on prod. Start anyway?"],
  ])("blocking findings: %d", (count, prompt) => {
    const approval: PendingApproval = {
      id: "job-1:a1",
      kind: "blocking-findings",
      step: null,
      options: ["approve", "abort"],
      askedAt: 0,
      facts: { kind: "blocking-findings", cluster: "prod", findings: Array(count).fill(finding) },
    };
    expect(approvalPrompt(approval)).toBe(prompt);
  });
});

describe("the plan's notes", () => {
  it("a window that fits no follower", () => {
    // 5 s of delay against a 4 s restart and the 2 s margin floor: not even one follower fits.
    const plan = { ...planOf(5, 0, 0), pace: "window" as const, windows: [] };
    const policy = {
      connectProtocol: null,
      scheduledRebalanceMaxDelayMs: 5_000,
      expectedRestartMs: 4_000,
      pace: "window" as const,
      windowMarginFloorMs: 2_000,
    };
    const [note] = planNotes(plan, policy, 5_000).filter((f) => f.code === "window-none");
    expect(note?.message).toMatch(
      /^Pace window formed no window: a window fits 0 followers \(the delay 5s must hold/,
    );
  });
});

describe("connect-roll config check's summary", () => {
  const program = { version: "0", commands: [configCheckCommand] };
  const cluster = (name: string) =>
    `  ${name}:\n    workers: [{ name: w1, url: "http://10.0.0.1:8083", metricsUrl: "http://10.0.0.1:9404/metrics" }]\n` +
    `    executor: { kind: sim, controlUrl: "http://127.0.0.1:7070" }\n` +
    "    connect: { scheduledRebalanceMaxDelayMs: 300000 }\n";
  const broken = (name: string) =>
    `  ${name}:\n    workers: []\n    executor: { kind: sim, controlUrl: "http://127.0.0.1:7070" }\n`;

  async function check(text: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "connect-roll-words-"));
    const file = join(dir, "config.yml");
    await writeFile(file, text);
    const io = captureIo();
    await runCli(program, ["config", "check", "--config", file], io);
    return (io.out().trim().split("\n").at(-1) ?? "").replace(`${file}: `, "");
  }

  // Without approvers a config has one warning (nobody may approve); with them, none.
  const approvers = "slack:\n  approvers: { users: [U123ABC] }\n";
  it.each([
    [1, approvers, "valid (1 cluster, 0 warnings)"],
    [5, "", "valid (5 clusters, 1 warning)"],
  ])("valid, clusters: %d", async (n, slack, summary) => {
    const names = Array.from({ length: n }, (_, i) => `c${i + 1}`);
    expect(await check(`${slack}clusters:\n${names.map(cluster).join("")}`)).toBe(summary);
  });

  it.each([
    [1, approvers, "invalid (1 error, 0 warnings)"],
    [5, "", "invalid (5 errors, 1 warning)"],
  ])("invalid, broken clusters: %d", async (n, slack, summary) => {
    const names = Array.from({ length: n }, (_, i) => `c${i + 1}`);
    expect(await check(`${slack}clusters:\n${names.map(broken).join("")}`)).toBe(summary);
  });
});

describe("no (s) plurals in src/", () => {
  /** The text of every string and template literal of a source file (a template's `${…}` parts left out). */
  function literals(source: string, file = "x.ts"): string[] {
    const out: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) out.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
    return out;
  }

  function* sourceFiles(dir: string): Generator<string> {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* sourceFiles(path);
      else if (/\.(ts|js|mjs)$/.test(entry.name)) yield path;
    }
  }

  it('no string in src/ counts with a parenthesised s ("http(s)", a URL scheme, is no count)', () => {
    const root = join(import.meta.dirname, "..", "..", "src");
    const offenders = [...sourceFiles(root)].flatMap((file) =>
      literals(readFileSync(file, "utf8"), file)
        .filter((l) => /[a-z]\(s\)/i.test(l.replace(/\bhttp\(s\)/g, "")))
        .map((l) => `${relative(root, file)}: ${l}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the check sees a (s) count, in a string or a template, not in a comment", () => {
    const source = [
      "// a comment with step(s)",
      'const a = "3 task(s)";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, on purpose
      "const b = `${n} worker(s) left`;",
    ].join("\n");
    expect(literals(source).filter((l) => l !== "")).toEqual(["3 task(s)", " worker(s) left"]);
  });
});
