import { describe, expect, it } from "vitest";
import { pathLine, type VersionResult, versionLine, versionTable } from "../kafka/matrix/matrix-report.js";

const passed: VersionResult = {
  version: "4.4.0",
  broker: "4.4.0",
  pass: true,
  failures: [],
  timings: { labUpMs: 41_200, restUpMs: 9_950, joinedMs: 11_000, tasksBackMs: 17_300, rollMs: 95_000 },
  rss: { brokerMiB: 350.4, workerMiB: 410.6 },
  notes: [],
  fidelity: { agree: 24, total: 24 },
};

describe("the matrix's lines", () => {
  it("one line per version: pass/fail, timings, memory and the fidelity count", () => {
    expect(versionLine(passed)).toBe(
      "4.4.0  pass  lab up 41.2 s · REST up 9.9 s · joined 11.0 s · tasks back 17.3 s · roll 95.0 s · RSS broker 350 MiB, worker 411 MiB · fidelity 24/24",
    );
  });

  it("a failed version names its broker when it is another version, and its failures", () => {
    const line = versionLine({
      ...passed,
      version: "2.8.2",
      broker: "3.9.2",
      pass: false,
      failures: ["worker-1: no kafka_connect_app_info_start_time_ms"],
      timings: { labUpMs: null, restUpMs: null, joinedMs: null, tasksBackMs: null, rollMs: null },
      rss: { brokerMiB: null, workerMiB: null },
    });
    expect(line).toMatch(/^2\.8\.2 {2}FAIL \(broker 3\.9\.2\) {2}lab up — /);
    expect(line).toMatch(/ — worker-1: no kafka_connect_app_info_start_time_ms$/);
  });

  it("a path line has each step's real and predicted gap, the leader starred", () => {
    const line = pathLine({
      name: "4.1.2>4.4.0",
      broker: "4.4.0",
      pass: true,
      failures: [],
      rollMs: 120_000,
      steps: [
        {
          step: 1,
          worker: "worker-2",
          isLeader: false,
          protocolAfter: "sessioned",
          predictedDowntimeMs: 20_000,
          maxGapMs: 21_500,
          wallMs: 30_000,
          restartMs: 8_000,
          botRebalances: 2,
          botStopTheWorld: 0,
          labStopTheWorld: 0,
        },
        {
          step: 2,
          worker: "worker-1",
          isLeader: true,
          protocolAfter: "sessioned",
          predictedDowntimeMs: 3_000,
          maxGapMs: 2_000,
          wallMs: 20_000,
          restartMs: 8_000,
          botRebalances: 3,
          botStopTheWorld: 0,
          labStopTheWorld: 0,
        },
      ],
      counters: { moves: 2, interruptions: 1, stopTheWorld: 0, botStopTheWorld: 0 },
      eagerWindows: [],
      findings: [],
      notes: [],
    });
    expect(line).toBe(
      "4.1.2>4.4.0  pass  roll 120.0 s · gaps real/predicted worker-2 21.5 s/20.0 s, worker-1* 2.0 s/3.0 s · moves 2, interruptions 1, stop-the-world 0",
    );
  });

  it("the docs table has a header, a rule and one row per version", () => {
    const rows = versionTable([passed]).split("\n");
    expect(rows).toHaveLength(3);
    expect(rows[2]).toBe(
      "| 4.4.0 | pass | 41.2 s | 9.9 s | 11.0 s | 17.3 s | 95.0 s | 350 MiB | 411 MiB | 24/24 |",
    );
  });
});
