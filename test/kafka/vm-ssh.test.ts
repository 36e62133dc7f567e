import { afterAll, describe, expect, it } from "vitest";
import { type RunningLab, startLab } from "../../src/lab/start-lab.js";
import { type Sshd, sshTarget, startSshd } from "../deploy/sshd-fixture.js";
import { labState, until } from "./lab-support.js";

/**
 * The VM path on a real worker: connect-roll's command executor runs deploy/vm/restart-worker-over-ssh.sh, a real
 * sshd's forced command hands the upgrade to a handler, and the handler restarts a real Connect worker of the lab on
 * the new version.
 */
let lab: RunningLab | null = null;
let ssh: Sshd | null = null;
afterAll(async () => {
  await ssh?.stop();
  await lab?.close();
});

describe("restart a real Connect worker over ssh (deploy/vm)", () => {
  it("upgrades worker-2 from 3.9.1 to 4.1.1 through sshd's forced command: once, back in the group, every task running", async () => {
    lab = await startLab({
      kafka: "3.9.1",
      brokerVersion: "4.1.1",
      workers: 3,
      connectors: 3,
      tasksPerConnector: 1,
      delayMs: 10_000,
      sessionTimeoutMs: 6_000,
    });
    const current = lab;
    ssh = await startSshd(current.controlUrl, "worker-2");
    const restarter = ssh.restarter();
    try {
      const receipt = await restarter.restart({
        worker: sshTarget("worker-2"),
        kind: "upgrade",
        version: "4.1.1",
        image: null,
        stepId: "s1",
      });
      expect(receipt.detail).toBeTruthy();
    } finally {
      await restarter.close();
    }
    const url = current.workers.find((w) => w.name === "worker-2")?.url ?? "";
    await until("worker-2 answers on 4.1.1", async () => {
      const r = await fetch(`${url}/`).catch(() => null);
      return r?.ok ? ((await r.json()) as { version: string }).version === "4.1.1" : null;
    });
    const after = await until("every task running again", async () => {
      const s = await labState(current);
      return s.heldTasks.length === 0 &&
        s.tasks.every((t) => t.state === "RUNNING") &&
        s.workers.every((w) => w.state === "running")
        ? s
        : null;
    });
    expect(after.counters.restarts).toEqual({ "worker-1": 0, "worker-2": 1, "worker-3": 0 });
    expect(after.workers.find((w) => w.name === "worker-1")?.version).toBe("3.9.1");
  });
});
