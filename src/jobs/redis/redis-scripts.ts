import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Cluster, Redis } from "ioredis";

/** Every Lua script of the job store. The suffix is the number of KEYS the script takes. */
const SCRIPT_NAMES = [
  "acquire-lock-3",
  "renew-lock-2",
  "release-lock-2",
  "read-lock-2",
  "force-release-2",
  "create-job-3",
  "save-job-3",
  "decide-1",
  "request-control-1",
  "take-over-5",
  "push-history-1",
  "record-slack-messages-1",
  "claim-report-2",
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

/** Raw reply of a script: Lua tables arrive as arrays of strings, numbers and nulls. */
export type ScriptReply = unknown;

/** Runs the job store's Lua scripts by SHA, loading them into Redis on first use (NOSCRIPT). */
export interface ScriptRunner {
  run(name: ScriptName, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<ScriptReply>;
}

interface LoadedScript {
  lua: string;
  sha: string;
  numberOfKeys: number;
}

/**
 * Reads the scripts from `./lua/<name>.lua` next to this module (the build copies them to dist).
 * Throws at creation when a file is missing, so a broken build fails at start-up, not mid-rollout.
 */
export function createScriptRunner(redis: Redis | Cluster): ScriptRunner {
  const scripts = new Map<ScriptName, LoadedScript>();
  for (const name of SCRIPT_NAMES) {
    const lua = readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), "utf8");
    const numberOfKeys = Number(name.slice(name.lastIndexOf("-") + 1));
    scripts.set(name, { lua, numberOfKeys, sha: createHash("sha1").update(lua).digest("hex") });
  }
  return {
    async run(name, keys, args) {
      const script = scripts.get(name);
      if (script === undefined) throw new Error(`unknown script ${name}`);
      if (keys.length !== script.numberOfKeys) {
        throw new Error(`script ${name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
      }
      try {
        return await redis.evalsha(script.sha, script.numberOfKeys, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        return await redis.eval(script.lua, script.numberOfKeys, ...keys, ...args);
      }
    },
  };
}
