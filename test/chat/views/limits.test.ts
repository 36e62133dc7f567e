import { describe, expect, it } from "vitest";
import {
  boundBlocks,
  escapeMrkdwn,
  fitLines,
  MAX_BLOCKS,
  MAX_SECTION_TEXT,
  truncateText,
} from "../../../src/chat/views/limits.js";
import { renderApprovalPrompt } from "../../../src/chat/views/render-approval.js";
import { renderFinalReport } from "../../../src/chat/views/render-final-report.js";
import { renderParent } from "../../../src/chat/views/render-parent.js";
import { renderStepReply } from "../../../src/chat/views/render-step-reply.js";
import type { GateReason } from "../../../src/core/settle/settle-types.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, stepStart } from "./rollout-state-builder.js";

describe("escapeMrkdwn", () => {
  it("escapes &, < and >", () => {
    expect(escapeMrkdwn("a & <b> <@U1> <!channel>")).toBe("a &amp; &lt;b&gt; &lt;@U1&gt; &lt;!channel&gt;");
  });
});

describe("truncateText", () => {
  it("leaves short text alone and ends cut text with …", () => {
    expect(truncateText("abc", 3)).toBe("abc");
    expect(truncateText("abcdef", 4)).toBe("abc…");
  });

  it("never cuts an entity, a mention or a surrogate pair in half", () => {
    expect(truncateText("ab &amp; cd", 6)).toBe("ab …");
    expect(truncateText("hi <@U12345> there", 9)).toBe("hi …");
    expect(truncateText("ab😀cd", 4)).toBe("ab…");
  });

  it("closes a code block it cut open", () => {
    const cut = truncateText(`\`\`\`\n${"x".repeat(100)}\n\`\`\``, 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(cut.endsWith("```")).toBe(true);
  });
});

describe("fitLines", () => {
  it("keeps whole lines within the budget, then +N more", () => {
    expect(fitLines(["aaaa", "bbbb", "cccc", "dddd"], 16)).toEqual(["aaaa", "+3 more"]);
    expect(fitLines(["aaaa", "bbbb", "cccc", "dddd"], 17)).toEqual(["aaaa", "bbbb", "+2 more"]);
    expect(fitLines(["a", "b", "c"], 100, 2)).toEqual(["a", "b", "+1 more"]);
    expect(fitLines(["a", "b"], 100)).toEqual(["a", "b"]);
  });

  it("truncates a single line longer than the budget", () => {
    const lines = fitLines(["x".repeat(5000)], 3000);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length).toBeLessThanOrEqual(3000);
  });
});

describe("boundBlocks", () => {
  it("keeps at most 50 blocks, replacing the tail by a +N more context", () => {
    const blocks = Array.from({ length: 60 }, () => ({ type: "divider" as const }));
    const bounded = boundBlocks(blocks);
    expect(bounded).toHaveLength(MAX_BLOCKS);
    expect(bounded[49]).toEqual({
      type: "context",
      elements: [{ type: "mrkdwn", text: "+11 more blocks not shown" }],
    });
    expect(boundBlocks(blocks.slice(0, 3))).toHaveLength(3);
  });
});

describe("a 60-worker rollout", () => {
  const names = Array.from({ length: 60 }, (_, i) => `kafka-connect-worker-with-a-long-name-${i + 1}`);

  it("keeps the parent and the report within Block Kit's limits while running and when finished", () => {
    const running = aRollout({ names }).settledThrough(40).restartIssued(41).build();
    const failed = aRollout({ names })
      .settledThrough(40)
      .failed(41, "x".repeat(5000))
      .finished("failed", { kind: "worker-not-found", worker: "y".repeat(5000), cluster: "prod-cluster" })
      .build();
    const done = aRollout({ names })
      .settledThrough(60)
      .finished("succeeded", { kind: "all-settled" })
      .build();
    for (const state of [running, failed, done]) {
      const now = stepStart(62);
      for (const m of [renderParent(state, now), renderFinalReport(state, now)]) {
        expect(limitViolations(m)).toEqual([]);
        expect(m.blocks.length).toBeLessThanOrEqual(MAX_BLOCKS);
        for (const b of m.blocks)
          if (b.type === "section") expect(b.text?.text.length).toBeLessThanOrEqual(MAX_SECTION_TEXT);
      }
    }
    expect(blockText(renderFinalReport(done, stepStart(62)))).toMatch(/\+\d+ more/);
  });

  it("keeps a step reply with hundreds of gate reasons bounded", () => {
    const reasons: GateReason[] = Array.from({ length: 300 }, (_, i) => ({
      code: "tasks-not-running",
      tasks: [],
      message: `${i} tasks not RUNNING on a live worker yet`,
    }));
    const state = aRollout({ names }).settling(1, reasons).build();
    const step = state.steps[0];
    if (step === undefined) throw new Error("no step");
    const m = renderStepReply(state, step, stepStart(2));
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toContain("+295 more");
  });
});

describe("untrusted text", () => {
  const trace = `org.apache.kafka.connect.errors.ConnectException: boom\n${"\tat com.example.Sink.put(Sink.java:42)\n".repeat(300)}`;
  const evil = "<script>alert(1)</script> <@U1> & co";

  it("truncates a 10 KB trace in a step reply, an approval and the report", () => {
    expect(trace.length).toBeGreaterThan(10_000);
    const reason: GateReason = {
      code: "task-failed",
      task: "orders/0",
      trace,
      message: `orders/0 FAILED: ${trace}`,
    };
    const state = aRollout().settling(1, [reason]).build();
    const step = state.steps[0];
    if (step === undefined) throw new Error("no step");
    const reply = renderStepReply(state, step, stepStart(2));
    expect(limitViolations(reply)).toEqual([]);
    expect(JSON.stringify(reply).length).toBeLessThan(3000);

    const asking = aRollout()
      .awaiting(
        { kind: "gate-failed", worker: "connect-1", reasons: [reason] },
        { options: ["continue", "abort"] },
      )
      .build();
    if (asking.phase.kind !== "awaiting-approval") throw new Error("not awaiting");
    const prompt = renderApprovalPrompt(asking, asking.phase.approval);
    expect(limitViolations(prompt)).toEqual([]);
    expect(JSON.stringify(prompt).length).toBeLessThan(4000);

    const failed = aRollout()
      .failed(1, trace)
      .finished("aborted", { kind: "aborted-at-prompt", by: "U2", approval: "restart-failed" })
      .build();
    const report = renderFinalReport(failed, stepStart(2));
    expect(limitViolations(report)).toEqual([]);
    expect(blockText(report)).not.toContain(trace.slice(0, 2000));
  });

  it("escapes a connector name with <script>, <@U1> and & everywhere it shows", () => {
    const reason: GateReason = {
      code: "connector-missing",
      connector: evil,
      message: `connector ${evil} is gone`,
    };
    const settling = aRollout().settling(1, [reason]).build();
    const step = settling.steps[0];
    if (step === undefined) throw new Error("no step");
    const asking = aRollout()
      .awaiting({
        kind: "config-changed",
        cluster: evil,
        changes: [{ kind: "task-count", connector: evil, before: 4, after: 6 }],
      })
      .build();
    if (asking.phase.kind !== "awaiting-approval") throw new Error("not awaiting");
    const aborted = aRollout({ names: [evil, "connect-2"] })
      .settling(1, [reason])
      .finished("aborted", { kind: "aborted", by: `U2 (${evil})` })
      .build();
    const messages = [
      renderStepReply(settling, step, stepStart(2)),
      renderParent(settling, stepStart(2)),
      renderApprovalPrompt(asking, asking.phase.approval),
      renderFinalReport(aborted, stepStart(3)),
      renderParent(aborted, stepStart(3)),
    ];
    for (const m of messages) {
      const all = [m.text, ...m.blocks.flatMap((b) => (b.type === "header" ? [] : collectTexts(b)))].join(
        "\n",
      );
      expect(all).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &lt;@U1&gt; &amp; co");
      expect(all).not.toContain("<script>");
      expect(all).not.toContain("<@U1>");
      expect(all).not.toMatch(/& co/);
    }
  });
});

/** Every mrkdwn or plain text in a block (headers are plain text, shown as is, and excluded by the caller). */
function collectTexts(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(collectTexts);
  const record = value as Record<string, unknown>;
  const own = record.type === "mrkdwn" && typeof record.text === "string" ? [record.text] : [];
  return [...own, ...Object.values(record).flatMap(collectTexts)];
}
