import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** CPU time and memory of a process group, read off /proc (Linux): what the load run reports per replica. */
export interface GroupSample {
  /** User plus system CPU time of the group's live processes, in milliseconds. */
  readonly cpuMs: number;
  /** Resident memory of the group's live processes, in bytes. */
  readonly rssBytes: number;
}

let ticksPerSecond: number | null = null;
function clockTicks(): number {
  ticksPerSecond ??=
    Number(execFileSync("getconf", ["CLK_TCK"], { timeout: 5_000 }).toString().trim()) || 100;
  return ticksPerSecond;
}

/** The fields of /proc/PID/stat after the command's name (which may hold spaces and parentheses). */
function statFields(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

function rssOf(pid: string): number {
  try {
    const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return Number(line?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Sums the live processes whose process group is `pgid`. */
export function sampleGroup(pgid: number): GroupSample {
  let ticks = 0;
  let rssBytes = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const f = statFields(pid);
    // After the name: state(0) ppid(1) pgrp(2) … utime(11) stime(12).
    if (f === null || Number(f[2]) !== pgid) continue;
    ticks += Number(f[11]) + Number(f[12]);
    rssBytes += rssOf(pid);
  }
  return { cpuMs: (ticks * 1_000) / clockTicks(), rssBytes };
}
