import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCliApprovals } from "../../src/cli/cli-approvals.js";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { renderEventLine } from "../../src/cli/render-event-line.js";
import type { PendingApproval } from "../../src/core/rollout/approval-types.js";
import { createSimRestarter } from "../../src/restart/sim/sim-restarter.js";
import type { RunningSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";
import { quickSimWithConfig } from "./support/sim-config-file.js";

/** Messages that said something untrue. */

const eager: PendingApproval = {
  id: "a1",
  kind: "eager-window",
  step: 1,
  facts: { kind: "eager-window", cluster: "prod", worker: "worker-1" },
  options: ["approve", "abort"],
  askedAt: 0,
};
const job = {} as Parameters<ReturnType<typeof createCliApprovals>["wait"]>[0];

describe("CLI messages", () => {
  it("a prompt nobody could answer is aborted by the CLI policy, not by the user, with the flag that answers it", async () => {
    const approvals = createCliApprovals({
      policy: { kind: "some", kinds: new Set() },
      interactive: false,
      input: new PassThrough(),
      output: new PassThrough(),
      user: "root@vm",
      now: () => 1,
    });
    const d = await approvals.wait(job, eager, new AbortController().signal);
    expect(d).toMatchObject({ decision: "abort" });
    expect(d.by).toBe("the CLI policy (no terminal to ask and no --approve=eager or --yes)");
  });

  it("an approval given by a flag names the flag", async () => {
    const approvals = createCliApprovals({
      policy: { kind: "some", kinds: new Set(["eager-window"]) },
      interactive: false,
      input: new PassThrough(),
      output: new PassThrough(),
      user: "root@vm",
      now: () => 1,
    });
    expect((await approvals.wait(job, eager, new AbortController().signal)).by).toBe(
      "root@vm (--approve=eager)",
    );
  });

  it("task downtime reads as task-seconds, counts in their number", () => {
    const line = renderEventLine(
      {
        kind: "step-settled",
        step: 2,
        worker: "w2",
        dataFlow: null,
        measurements: {
          restartMs: 3_000,
          settleMs: 5_000,
          tasksMoved: 0,
          taskDowntimeMs: 12_000,
          rebalances: 2,
          eagerRebalances: 0,
          polls: 4,
        },
      },
      new Map(),
    );
    expect(line).toBe("step 2: w2 settled in 5s, 0 tasks moved, downtime 12 task-seconds");
  });

  it("the sim executor does not claim the worker was down for 0 ms", async () => {
    const server = createServer((_req, res) => res.writeHead(202).end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const restarter = createSimRestarter({ controlUrl: url, downMs: 0, timeoutMs: 2_000 });
      const worker = {
        name: "w1",
        url: "http://127.0.0.1:1",
        host: "127.0.0.1",
        workerId: "127.0.0.1:1",
        pod: null,
      };
      const receipt = await restarter.restart({
        worker,
        kind: "restart",
        version: "3.7.1",
        image: null,
        stepId: "s1",
      });
      expect(receipt.detail).toBe("Simulator restarted w1 (restart to 3.7.1).");
    } finally {
      server.close();
    }
  });
});

describe("an interrupted run without Redis", () => {
  let sim: RunningSim;
  let config: string;
  beforeAll(async () => {
    ({ sim, config } = await quickSimWithConfig("messages", {
      connectors: 2,
      tasksPerConnector: 1,
      seed: 3,
    }));
  });
  afterAll(async () => {
    await sim.close();
  });

  it("does not claim its checkpoint is kept", async () => {
    const controller = new AbortController();
    const io = { ...captureIo(), signal: controller.signal };
    const running = runCli(
      { version: "0", commands: [runCommand] },
      ["run", "--config", config, "sim", "restart", "--yes"],
      io,
    );
    await waitFor("run to start step 1", () => io.out().includes("step 1: restarting"));
    controller.abort(new Error("SIGINT"));
    expect(await running).toBe(1);
    expect(io.err()).not.toContain("checkpoint is kept");
    expect(io.err()).toContain("without Redis the checkpoint ends with this process");
  });
});
