import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The tasks the lab holds in a stall: a file per task in the control folder that the lab connectors read (its content
 * the epoch ms the stall ends, or "forever"), and what the lab remembers of them.
 */
export interface LabStalls {
  stall(task: string, connector: string, id: number, ms: number | null): Promise<void>;
  resume(task: string, connector: string, id: number): Promise<void>;
  /** The stalled tasks among `running`, at `now`. */
  stalledNow(running: ReadonlySet<string>, now: number): string[];
}

export function createLabStalls(controlDir: string): LabStalls {
  /** "connector/N" → the epoch ms the stall ends (null: until resumed). */
  const stalls = new Map<string, number | null>();
  const file = (connector: string, id: number) => join(controlDir, `stall-${connector}-${id}`);
  return {
    async stall(task, connector, id, ms) {
      const until = ms === null ? null : Date.now() + ms;
      stalls.set(task, until);
      await writeFile(file(connector, id), until === null ? "forever" : String(until));
    },
    async resume(task, connector, id) {
      stalls.delete(task);
      await rm(file(connector, id), { force: true });
    },
    stalledNow(running, now) {
      return [...stalls]
        .filter(([t, until]) => (until === null || until > now) && running.has(t))
        .map(([t]) => t)
        .sort();
    },
  };
}
