import { describe, expect, it } from "vitest";
import { buildSnapshot, clusterView, type SandboxInfo } from "../../src/sandbox/sandbox-snapshot.js";
import { createWebApiStore } from "../../src/sandbox/web-api-store.js";

const INFO: SandboxInfo = {
  channel: { id: "CDEMO0001", name: "ops" },
  users: [{ id: "U1", name: "one", role: "requester" }],
  groups: {},
  bot: { userId: "UBOT", name: "connect-roll" },
  scenario: { name: "upgrade", title: "t", note: [], command: "/connect-roll demo v3.7" },
};
const SIM = {
  now: 0,
  generation: 1,
  protocol: "sessioned",
  leader: null,
  workers: [],
  heldTasks: [],
  delayDeadline: null,
  tasks: [],
  counters: {
    rebalances: 0,
    eagerRebalances: 0,
    taskMoves: 0,
    taskInterruptions: 0,
    taskDowntimeMs: 0,
    restarts: {},
  },
  dataFlow: { maxGapMs: 0, perTask: {}, stalled: [], sink: null },
} as unknown as Parameters<typeof clusterView>[0];

describe("clusterView", () => {
  it("shows a task RUNNING without data as stalled, on its worker", () => {
    const view = clusterView({
      ...SIM,
      workers: [
        {
          name: "worker-1",
          workerId: "127.0.0.1:8083",
          url: "http://127.0.0.1:8083",
          version: "3.9.1",
          connectProtocol: "sessioned",
          state: "running",
          joined: true,
          connectors: [],
          tasks: ["orders/0", "orders/1"],
        },
      ],
      tasks: [
        { id: "orders/0", state: "RUNNING", workerId: "127.0.0.1:8083" },
        { id: "orders/1", state: "RUNNING", workerId: "127.0.0.1:8083" },
      ],
      dataFlow: { maxGapMs: 0, perTask: {}, stalled: ["orders/1"], sink: null },
    });
    expect(view.workers[0]?.tasks).toEqual([
      { id: "orders/0", state: "RUNNING" },
      { id: "orders/1", state: "STALLED" },
    ]);
  });
});

describe("buildSnapshot", () => {
  it("shows a broadcast reply in the thread (flagged) and in the channel; Home tabs per user once published", () => {
    const store = createWebApiStore();
    const parent = store.postMessage({ channel: "CDEMO0001", user: "UBOT", text: "parent" });
    store.postMessage({ channel: "CDEMO0001", user: "UBOT", text: "step", threadTs: parent.ts });
    const report = store.postMessage({
      channel: "CDEMO0001",
      user: "UBOT",
      text: "report",
      threadTs: parent.ts,
      broadcast: true,
    });
    const before = buildSnapshot(INFO, store, SIM, []);
    expect(before.messages.map((m) => m.text)).toEqual(["parent"]);
    expect(before.messages[0]?.replies.map((r) => [r.text, r.broadcast])).toEqual([
      ["step", false],
      ["report", true],
    ]);
    expect(before.broadcasts).toEqual([expect.objectContaining({ ts: report.ts, threadTs: parent.ts })]);
    expect(before.homes).toEqual({});
    store.publishHome("U1", { type: "home", blocks: [{ type: "divider" }] });
    store.publishHome("UOTHER", { type: "home", blocks: [] });
    expect(buildSnapshot(INFO, store, SIM, []).homes).toEqual({ U1: [{ type: "divider" }] });
  });
});
