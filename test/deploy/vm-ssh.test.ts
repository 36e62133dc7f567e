import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "../../src/core/errors.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { spawnCli } from "../cli/support/spawn-cli.js";
import { waitFor } from "../support/wait-for.js";
import { SCRIPT, SSH_USER, type Sshd, sshTarget, startSshd } from "./sshd-fixture.js";

/**
 * deploy/vm end to end: connect-roll's command executor runs restart-worker-over-ssh.sh, which reaches a real sshd
 * (Debian's openssh-server, started here on a loopback port with its own host key and config) whose forced command
 * (forced-command.sh) hands the request to a handler that restarts a simulated worker through the simulator's control
 * API. Host keys are checked against a known_hosts file; nothing a user typed reaches a shell.
 */

let sim: RunningSim;
let ssh: Sshd;
let dir: string;
let port: number;
const USER = SSH_USER;

beforeAll(async () => {
  sim = await startSim({
    virtualTime: false,
    workers: 3,
    connectors: 2,
    tasksPerConnector: 1,
    version: "3.6.1",
    restartMs: 300,
    delayMs: 1_000,
  });
  ssh = await startSshd(sim.controlUrl, "worker-2");
  dir = ssh.dir;
  port = ssh.port;
}, 30_000);

afterAll(async () => {
  await ssh?.stop();
  await sim?.close();
});

const target = sshTarget;
const restarter = (knownHosts = "known_hosts") => ssh.restarter(knownHosts);

async function restartsOf(name: string): Promise<number> {
  await sim.settle();
  return sim.cluster.state().counters.restarts[name] ?? 0;
}

describe("restart a worker over ssh (deploy/vm)", () => {
  it("restarts the worker through sshd's forced command", async () => {
    const r = restarter();
    try {
      const before = await restartsOf("worker-2");
      const receipt = await r.restart({
        worker: target("worker-2"),
        kind: "restart",
        version: "3.6.1",
        image: null,
        stepId: "s1",
      });
      expect(receipt.detail).toBeTruthy();
      // The simulator counts the restart once the worker is started again.
      await waitFor(
        "the simulator to count worker-2's restart",
        async () => (await restartsOf("worker-2")) >= before + 1,
      );
      expect(await restartsOf("worker-2")).toBe(before + 1);
    } finally {
      await r.close();
    }
  });

  it("upgrades it: the version reaches the simulator", async () => {
    const r = restarter();
    try {
      const before = await restartsOf("worker-2");
      await r.restart({
        worker: target("worker-2"),
        kind: "upgrade",
        version: "3.7.1",
        image: null,
        stepId: "s2",
      });
      // The version changes as the worker starts booting; the simulator counts the restart (the next test reads the
      // count) only once the worker runs again.
      await waitFor("worker-2 running 3.7.1 in the simulator, its restart counted", async () => {
        const restarts = await restartsOf("worker-2");
        const worker = sim.cluster.state().workers.find((w) => w.name === "worker-2");
        return worker?.version === "3.7.1" && worker.state === "running" && restarts >= before + 1;
      });
      expect(await restartsOf("worker-2")).toBe(before + 1);
      expect(sim.cluster.state().workers.find((w) => w.name === "worker-1")?.version).toBe("3.6.1");
    } finally {
      await r.close();
    }
  });

  it("refuses a host whose key is not the known one, restarting nothing", async () => {
    const r = restarter("wrong_known_hosts");
    try {
      const before = await restartsOf("worker-2");
      const err = await r
        .restart({ worker: target("worker-2"), kind: "restart", version: "3.6.1", image: null, stepId: "s3" })
        .catch((e: unknown) => e);
      expect(isAppError(err, "restart/failed")).toBe(true);
      expect((err as Error).message).toMatch(
        /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/,
      );
      expect(await restartsOf("worker-2")).toBe(before);
    } finally {
      await r.close();
    }
  });

  it("the key restarts its own worker only", async () => {
    const r = restarter();
    try {
      const err = await r
        .restart({ worker: target("worker-3"), kind: "restart", version: "3.6.1", image: null, stepId: "s4" })
        .catch((e: unknown) => e);
      expect((err as Error).message).toContain("this key restarts worker-2 only");
      expect(await restartsOf("worker-3")).toBe(0);
    } finally {
      await r.close();
    }
  });

  it("the script refuses shell syntax in any value before it runs ssh", async () => {
    for (const [flag, value] of [
      ["--worker", "worker-2;touch x"],
      ["--host", "127.0.0.1 -oProxyCommand=x"],
      ["--version", "$(id)"],
    ] as const) {
      const args = [
        "--host",
        "127.0.0.1",
        "--worker",
        "worker-2",
        "--version",
        "3.7.1",
        "--identity",
        join(dir, "client_key"),
        "--known-hosts",
        join(dir, "known_hosts"),
        "--kind",
        "upgrade",
      ];
      args[args.indexOf(flag) + 1] = value;
      const p = spawnCli(SCRIPT, args);
      const { code } = await p.exited;
      expect(code).toBe(2);
      expect(p.err()).toMatch(/^restart-worker-over-ssh: not a/);
    }
  });

  it("the forced command refuses anything but restart/upgrade of its worker, whatever the client sends", async () => {
    const marker = join(dir, "pwned");
    for (const request of [
      `restart worker-2; touch ${marker}`,
      "restart worker-2 $(touch x)",
      "sh -c id",
      "upgrade worker-2 3.7.1 extra",
    ]) {
      const p = spawnCli("ssh", [
        "-n",
        "-o",
        "BatchMode=yes",
        "-o",
        `UserKnownHostsFile=${join(dir, "known_hosts")}`,
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "IdentitiesOnly=yes",
        "-F",
        "/dev/null",
        "-i",
        join(dir, "client_key"),
        "-p",
        String(port),
        "-l",
        USER,
        "127.0.0.1",
        request,
      ]);
      const { code } = await p.exited;
      expect(code, request).toBe(2);
      expect(p.err()).toContain("connect-roll forced command: refused");
    }
    expect(existsSync(marker)).toBe(false);
  });
});
