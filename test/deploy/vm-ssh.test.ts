import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "../../src/core/errors.js";
import { createCommandRestarter } from "../../src/restart/command-restarter.js";
import type { RestartTarget } from "../../src/restart/worker-restarter.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { type SpawnedCli, spawnCli } from "../cli/support/spawn-cli.js";

/**
 * deploy/vm end to end: connect-roll's command executor runs restart-worker-over-ssh.sh, which reaches a real sshd
 * (Debian's openssh-server, started here on a loopback port with its own host key and config) whose forced command
 * (forced-command.sh) hands the request to a handler that restarts a simulated worker through the simulator's control
 * API. Host keys are checked against a known_hosts file; nothing a user typed reaches a shell.
 */

const SSHD = "/usr/sbin/sshd";
const SCRIPT = resolve("deploy/vm/restart-worker-over-ssh.sh");
const FORCED = resolve("deploy/vm/forced-command.sh");
const USER = userInfo().username;

let dir: string;
let sim: RunningSim;
let sshd: SpawnedCli;
let port: number;
let hostKeyLine: string;

function keygen(file: string): void {
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", file], {
    timeout: 10_000,
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const p = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return p;
}

beforeAll(async () => {
  if (!existsSync(SSHD))
    throw new Error(
      `${SSHD} is missing: install Debian's openssh-server (apt-get install -y openssh-server)`,
    );
  dir = await mkdtemp(join(tmpdir(), "connect-roll-vm-"));
  sim = await startSim({
    virtualTime: false,
    workers: 3,
    connectors: 2,
    tasksPerConnector: 1,
    version: "3.6.1",
    restartMs: 300,
    delayMs: 1_000,
  });
  keygen(join(dir, "host_key"));
  keygen(join(dir, "client_key"));
  keygen(join(dir, "other_host_key"));
  // The handler the VM's admin would write; here it restarts a simulated worker through the control API.
  const handler = join(dir, "sim-handler.sh");
  await writeFile(
    handler,
    `#!/usr/bin/env bash\nset -euo pipefail\nset -f\nexec curl -fsS --max-time 10 -X POST "${sim.controlUrl}/sim/workers/$2/restart\${3:+?version=$3}"\n`,
  );
  await chmod(handler, 0o755);
  const clientPub = (await readFile(join(dir, "client_key.pub"), "utf8")).trim();
  await writeFile(
    join(dir, "authorized_keys"),
    `command="${FORCED} --worker worker-2 --handler ${handler}",restrict ${clientPub}\n`,
    { mode: 0o600 },
  );
  port = await freePort();
  await writeFile(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `AllowUsers ${USER}`,
      "PermitRootLogin forced-commands-only",
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      // The key files live under the world-writable tmpdir, which StrictModes would refuse.
      "StrictModes no",
      "LogLevel VERBOSE",
      "",
    ].join("\n"),
  );
  await mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  sshd = spawnCli(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")]);
  await sshd.waitFor(new RegExp(`Server listening on 127\\.0\\.0\\.1 port ${port}`), "err");
  hostKeyLine = `[127.0.0.1]:${port} ${(await readFile(join(dir, "host_key.pub"), "utf8")).split(" ").slice(0, 2).join(" ")}`;
  await writeFile(join(dir, "known_hosts"), `${hostKeyLine}\n`);
  const other = (await readFile(join(dir, "other_host_key.pub"), "utf8")).split(" ").slice(0, 2).join(" ");
  await writeFile(join(dir, "wrong_known_hosts"), `[127.0.0.1]:${port} ${other}\n`);
}, 30_000);

afterAll(async () => {
  sshd?.stop();
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const target = (name: string): RestartTarget => ({
  name,
  url: "http://127.0.0.1:1",
  host: "127.0.0.1",
  workerId: "127.0.0.1:1",
  pod: null,
});

function restarter(knownHosts = "known_hosts") {
  return createCommandRestarter({
    argv: [
      SCRIPT,
      "--host",
      "{host}",
      "--port",
      String(port),
      "--user",
      USER,
      "--worker",
      "{worker}",
      "--version",
      "{version}",
      "--identity",
      join(dir, "client_key"),
      "--known-hosts",
      join(dir, knownHosts),
    ],
    timeoutMs: 20_000,
    env: { PATH: "/usr/bin:/bin", HOME: dir },
  });
}

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
      while ((await restartsOf("worker-2")) < before + 1) await new Promise((res) => setTimeout(res, 20));
      expect(await restartsOf("worker-2")).toBe(before + 1);
    } finally {
      await r.close();
    }
  });

  it("upgrades it: the version reaches the simulator", async () => {
    const r = restarter();
    try {
      await r.restart({
        worker: target("worker-2"),
        kind: "upgrade",
        version: "3.7.1",
        image: null,
        stepId: "s2",
      });
      while (sim.cluster.state().workers.find((w) => w.name === "worker-2")?.version !== "3.7.1")
        await new Promise((res) => setTimeout(res, 20));
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
