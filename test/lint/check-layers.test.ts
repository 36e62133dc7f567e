import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const script = join(import.meta.dirname, "../../scripts/check-layers.mjs");
let dir: string | undefined;

function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function check(root: string): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [script, root], { timeout: 10_000 });
    return { code: 0, stderr: "" };
  } catch (e) {
    const failure = e as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
}

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the folder-level dependency check", () => {
  it("passes on this checkout's src/", async () => {
    expect(await check(join(import.meta.dirname, "../../src"))).toEqual({ code: 0, stderr: "" });
  });

  it("names each import that points the wrong way, type-only and re-exports included", async () => {
    const root = tree({
      "core/a.ts": 'import type { Job } from "../jobs/store/job.js";\n',
      "jobs/store/job.ts": 'export { render } from "../../chat/view.js";\nimport { x } from "./local.js";\n',
      "sim/s.ts": 'import { lock } from "../jobs/store/job.js";\nimport { v } from "../core/a.js";\n',
      "chat/view.ts": 'import { j } from "../jobs/store/job.js";\n',
    });
    const { code, stderr } = await check(root);
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toContain(
      "src/core/a.ts imports src/jobs/store/job.ts: core may import nothing outside itself",
    );
    expect(lines).toContain(
      "src/jobs/store/job.ts imports src/chat/view.ts: jobs/store may import only core",
    );
    expect(lines).toContain("src/sim/s.ts imports src/jobs/store/job.ts: sim may import only core");
    expect(lines.at(-1)).toMatch(/^3 import\(s\) point the wrong way/);
  });

  it("keeps the simulator off the planner's model of Kafka, while it may use the rest of core", async () => {
    const root = tree({
      "core/protocol.ts": "export const p = 1;\n",
      "core/version.ts": "export const v = 1;\n",
      "sim/model.ts": 'import { p } from "../core/protocol.js";\nimport { v } from "../core/version.js";\n',
    });
    const { code, stderr } = await check(root);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toEqual([
      "src/sim/model.ts imports src/core/protocol.ts: the simulator models Kafka's protocols and fixes itself (src/sim/protocol-model.ts)",
      "1 import(s) point the wrong way between folders (the layers: scripts/check-layers.mjs)",
    ]);
  });

  it("checks jobs room by room: the runner knows the store's port, not its adapters", async () => {
    const root = tree({
      "jobs/store/job-store.ts": "export interface JobStore {}\n",
      "jobs/redis/redis-job-store.ts": 'import type { JobStore } from "../store/job-store.js";\n',
      "jobs/runner/runner.ts":
        'import type { JobStore } from "../store/job-store.js";\nimport { r } from "../redis/redis-job-store.js";\n',
      "jobs/loose.ts": "export const l = 1;\n",
    });
    const { code, stderr } = await check(root);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toEqual([
      'src/jobs/loose.ts: "jobs" is split into rooms (jobs/store, jobs/memory, jobs/redis, jobs/runner); put it in one',
      "src/jobs/runner/runner.ts imports src/jobs/redis/redis-job-store.ts: jobs/runner may import only core, connect, restart, jobs/store",
      "2 import(s) point the wrong way between folders (the layers: scripts/check-layers.mjs)",
    ]);
  });

  it("asks for a layer when a new folder appears", async () => {
    const { code, stderr } = await check(tree({ "plugins/p.ts": "export const p = 1;\n" }));
    expect(code).toBe(1);
    expect(stderr).toContain('folder "plugins" has no layer');
  });
});
