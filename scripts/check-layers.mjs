// Folder-level dependency check (`npm run lint`): dpdm finds circles between files; this finds arrows between the
// folders of src/ that point the wrong way. Each folder lists the folders it may import (type-only imports count:
// a type names a dependency as much as a value does). A folder split into rooms (`jobs`) is checked room by room:
// `jobs/store` is a layer of its own, as `config` is. The layers, from the ground up:
//   core, process                pure rollout domain; a bounded child-process runner
//   sim, lab                     the simulator and the real-Kafka lab: know nothing of the bot (and sim not the
//                                planner's model of Kafka: FORBIDDEN below)
//   restart                      the executors, each with its piece of the config file (src/restart/executors.ts)
//   config, connect              configuration (built with the executors' pieces), the Connect REST/metrics adapters
//   jobs/store                   the JobStore port, its roles and what it stores (job records, checkpoints, audit)
//   jobs/memory, jobs/redis      its adapters: in process memory; on Redis (with the ioredis connection)
//   jobs/runner                  the rollout runner, lock keeper and rollout service: the store only through its port
//   usecases                     what Slack and the CLI both do (prepare a rollout, control it, answer an approval,
//                                read status): access policy and checks, refusals as values; no text, no transport
//   wording                      the plain-text words for core's facts and the use-cases' refusals: what Slack and
//                                the terminal share, and the terminal's refusal lines (no mrkdwn, no transport)
//   chart                        the rollout's timeline chart: its data from the checkpoint, drawn as SVG and PNG
//   chat                         the Slack app (listeners, Block Kit views, notifier)
//   sandbox                      the local Slack stand-in (fake Web API, Socket Mode, page)
//   composition                  wires concrete adapters: the rollout engine, serve runtime, cluster composition,
//                                sim/lab cluster configs
//   demo, cli                    entry points
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const JOBS = ["jobs/store", "jobs/memory", "jobs/redis", "jobs/runner"];
/** What the composition root wires, and the CLI may use: everything but the sandbox and the entry points. */
const WIRED = [
  "core",
  "process",
  "sim",
  "lab",
  "config",
  "connect",
  "restart",
  ...JOBS,
  "usecases",
  "wording",
  "chart",
  "chat",
];
const ALLOWED = {
  core: [],
  process: [],
  sim: ["core"],
  lab: ["core", "process", "sim"],
  restart: ["core", "process"],
  config: ["core", "restart"],
  connect: ["core", "config"],
  "jobs/store": ["core"],
  "jobs/memory": ["core", "jobs/store"],
  "jobs/redis": ["core", "config", "connect", "jobs/store"],
  "jobs/runner": ["core", "connect", "restart", "jobs/store"],
  usecases: ["core", "config", "connect", "jobs/store", "jobs/runner"],
  wording: ["core", "usecases"],
  chart: ["core"],
  chat: ["core", "config", "connect", "jobs/store", "jobs/runner", "usecases", "wording", "chart"],
  sandbox: ["core", "chat", "sim"],
  composition: WIRED,
  demo: ["core", "sim", "config", ...JOBS, "usecases", "chat", "sandbox", "composition"],
  cli: [...WIRED, "composition", "demo"],
  "cli.ts": ["cli"],
};

/** Folders checked room by room: each subfolder is a layer, named `folder/room`. */
const ROOMS = new Set(["jobs"]);

/**
 * Files a folder may not import although its layer allows their folder, and why. The simulator uses core's types and
 * helpers, but holds its own model of Kafka's behaviour: were it to take the planner's, it could no longer catch the
 * planner's mistakes.
 */
const FORBIDDEN = {
  sim: {
    "core/protocol.ts": "the simulator models Kafka's protocols and fixes itself (src/sim/protocol-model.ts)",
  },
};

// The tree to check: src/ of this checkout, or the folder given as the first argument (the check's own test).
const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "src");
const importPattern = /(?:^|[\s;])(?:import|export)\b[^"'`;]*?(?:from\s*)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield path;
  }
}

const posix = (path) => path.split(sep).join("/");
/** The layer a file is in: its folder of src/, or its room of a folder split into rooms. */
function folderOf(path) {
  const [folder = "", room] = relative(root, path).split(sep);
  return ROOMS.has(folder) && room !== undefined && !/\.[a-z]+$/.test(room) ? `${folder}/${room}` : folder;
}
const problems = [];
for (const file of sourceFiles(root)) {
  const from = folderOf(file);
  const allowed = ALLOWED[from];
  if (!allowed) {
    problems.push(
      ROOMS.has(from)
        ? `src/${posix(relative(root, file))}: "${from}" is split into rooms (${Object.keys(ALLOWED).filter((l) => l.startsWith(`${from}/`)).join(", ")}); put it in one`
        : `src/${posix(relative(root, file))}: folder "${from}" has no layer in scripts/check-layers.mjs; add it`,
    );
    continue;
  }
  for (const match of readFileSync(file, "utf8").matchAll(importPattern)) {
    const target = normalize(join(dirname(file), match[1] ?? match[2]));
    if (!target.startsWith(root + sep)) continue;
    const to = folderOf(target);
    // A TypeScript file names its imports by their emitted .js names; report the source file.
    const imported = posix(file.endsWith(".ts") ? relative(root, target).replace(/\.js$/, ".ts") : relative(root, target));
    const forbidden = FORBIDDEN[from]?.[imported];
    if (forbidden !== undefined) {
      problems.push(`src/${posix(relative(root, file))} imports src/${imported}: ${forbidden}`);
      continue;
    }
    if (to === from || allowed.includes(to)) continue;
    const may = allowed.length === 0 ? "nothing outside itself" : `only ${allowed.join(", ")}`;
    problems.push(`src/${posix(relative(root, file))} imports src/${imported}: ${from} may import ${may}`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`${problems.length} import(s) point the wrong way between folders (the layers: scripts/check-layers.mjs)`);
  process.exit(1);
}
