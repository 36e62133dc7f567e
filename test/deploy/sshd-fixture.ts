import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { createCommandRestarter } from "../../src/restart/command/command-restarter.js";
import type { RestartTarget, WorkerRestarter } from "../../src/restart/worker-restarter.js";
import { type SpawnedCli, spawnCli } from "../cli/support/spawn-cli.js";

/**
 * A real sshd (Debian's openssh-server) on a loopback port with its own host key and config, whose forced command
 * (deploy/vm/forced-command.sh) hands a restart of `worker` to a handler that calls a control API's
 * `POST /sim/workers/{name}/restart` — the simulator's or the real lab's, which share it.
 */
export const SSHD = "/usr/sbin/sshd";
export const SCRIPT = resolve("deploy/vm/restart-worker-over-ssh.sh");
const FORCED = resolve("deploy/vm/forced-command.sh");
export const SSH_USER = userInfo().username;

export interface Sshd {
  readonly dir: string;
  readonly port: number;
  readonly process: SpawnedCli;
  /** The command executor calling restart-worker-over-ssh.sh with this sshd's key files. */
  restarter(knownHosts?: string): WorkerRestarter;
  stop(): Promise<void>;
}

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

export function sshTarget(name: string): RestartTarget {
  return { name, url: "http://127.0.0.1:1", host: "127.0.0.1", workerId: "127.0.0.1:1", pod: null };
}

export async function startSshd(controlUrl: string, worker: string): Promise<Sshd> {
  if (!existsSync(SSHD))
    throw new Error(
      `${SSHD} is missing: install Debian's openssh-server (apt-get install -y openssh-server)`,
    );
  const dir = await mkdtemp(join(tmpdir(), "connect-roll-vm-"));
  keygen(join(dir, "host_key"));
  keygen(join(dir, "client_key"));
  keygen(join(dir, "other_host_key"));
  // The handler the VM's admin would write; here it restarts a worker through the control API.
  const handler = join(dir, "handler.sh");
  await writeFile(
    handler,
    `#!/usr/bin/env bash\nset -euo pipefail\nset -f\nexec curl -fsS --max-time 120 -X POST "${controlUrl}/sim/workers/$2/restart\${3:+?version=$3}"\n`,
  );
  await chmod(handler, 0o755);
  const clientPub = (await readFile(join(dir, "client_key.pub"), "utf8")).trim();
  await writeFile(
    join(dir, "authorized_keys"),
    `command="${FORCED} --worker ${worker} --handler ${handler}",restrict ${clientPub}\n`,
    { mode: 0o600 },
  );
  const port = await freePort();
  await writeFile(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `AllowUsers ${SSH_USER}`,
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
  const sshd = spawnCli(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")]);
  await sshd.waitFor(new RegExp(`Server listening on 127\\.0\\.0\\.1 port ${port}`), "err");
  const hostKey = (await readFile(join(dir, "host_key.pub"), "utf8")).split(" ").slice(0, 2).join(" ");
  await writeFile(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  const other = (await readFile(join(dir, "other_host_key.pub"), "utf8")).split(" ").slice(0, 2).join(" ");
  await writeFile(join(dir, "wrong_known_hosts"), `[127.0.0.1]:${port} ${other}\n`);
  return {
    dir,
    port,
    process: sshd,
    restarter(knownHosts = "known_hosts") {
      return createCommandRestarter({
        argv: [
          SCRIPT,
          "--host",
          "{host}",
          "--port",
          String(port),
          "--user",
          SSH_USER,
          "--worker",
          "{worker}",
          "--version",
          "{version}",
          "--identity",
          join(dir, "client_key"),
          "--known-hosts",
          join(dir, knownHosts),
        ],
        timeoutMs: 180_000,
        env: { PATH: "/usr/bin:/bin", HOME: dir },
      });
    },
    async stop() {
      sshd.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
