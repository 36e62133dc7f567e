import type { Logger } from "pino";
import type { RunningSim, StartSimOptions } from "../sim/start-sim.js";

/**
 * The demo's presets: a simulated 6-worker cluster in real time with short timings (a rollout in about a minute)
 * and what the cluster config declares about it. `during` may disturb the cluster while the rollout runs.
 */
export const DEMO_SCENARIOS = ["upgrade", "eager-upgrade", "slow-gate", "crash", "stall"] as const;
export type DemoScenarioName = (typeof DEMO_SCENARIOS)[number];

export function isDemoScenario(name: string): name is DemoScenarioName {
  return DEMO_SCENARIOS.some((s) => s === name);
}

/** Timings every scenario shares (ms). */
export const DEMO_TIMINGS = {
  delayMs: 6_000,
  restartMs: 2_000,
  taskStartMs: 300,
  rebalanceMs: 300,
  sessionTimeoutMs: 4_000,
  pollIntervalMs: 500,
  consecutivePolls: 2,
  quietPeriodMs: 1_000,
} as const;

export interface DemoScenario {
  readonly name: DemoScenarioName;
  readonly title: string;
  /** What to type and what to watch for, shown on the page and in the terminal. */
  readonly note: readonly string[];
  /** The command the note suggests. */
  readonly command: string;
  readonly sim: StartSimOptions;
  /** What the cluster config declares (it may differ from the simulated truth: that is the point of slow-gate). */
  readonly declared: {
    readonly delayMs: number;
    readonly slowAfterMs?: number;
    readonly stallAfterMs?: number;
  };
  /** Disturbs the cluster while a rollout runs; returns a disposer. `log` adds a line to the page's scenario log. */
  readonly during?: (sim: RunningSim, log: (line: string) => void, logger: Logger) => () => void;
}

const T = DEMO_TIMINGS;

/**
 * The sandbox's fleet: three small simulated clusters of their own beside `demo`, rolled in two stages with a 10 s
 * soak between and an approval before the second (`/connect-roll fleet demo-fleet v3.7`).
 */
export const DEMO_FLEET = {
  name: "demo-fleet",
  stages: [["demo-staging"], ["demo-eu", "demo-us"]],
  soakBetweenMs: 10_000,
} as const;

/** One of the fleet's clusters: 3 workers, 2 connectors of 2 tasks, the demo's timings. */
export function demoFleetSim(index: number): StartSimOptions {
  return baseSim({ workers: 3, connectors: 2, tasksPerConnector: 2, seed: 70 + index });
}
const COMMAND = "/connect-roll demo v3.7";

function baseSim(overrides: Partial<StartSimOptions> = {}): StartSimOptions {
  return {
    virtualTime: false,
    speed: 1,
    workers: 6,
    connectors: 6,
    tasksPerConnector: 3,
    version: "3.6.1",
    delayMs: T.delayMs,
    restartMs: T.restartMs,
    restartJitter: 0.1,
    taskStartMs: T.taskStartMs,
    rebalanceMs: T.rebalanceMs,
    sessionTimeoutMs: T.sessionTimeoutMs,
    seed: 7,
    ...overrides,
  };
}

export function demoScenario(name: DemoScenarioName): DemoScenario {
  switch (name) {
    case "upgrade":
      return {
        name,
        title: "Rolling upgrade 3.6.1 → 3.7",
        command: COMMAND,
        note: [
          `Type ${COMMAND} as the requester.`,
          "Followers restart first, the leader last. After each restart the worker's tasks are held (grey) for the scheduled delay, then come back to it: watch the countdown, and the step only completes once the settle gate passes.",
        ],
        sim: baseSim(),
        declared: { delayMs: T.delayMs },
      };
    case "eager-upgrade":
      return {
        name,
        title: "Upgrade with one worker on 2.2.2 (eager protocol)",
        command: COMMAND,
        note: [
          `Type ${COMMAND} as the requester.`,
          "worker-2 runs 2.2.2, which only speaks the eager protocol, so the whole group is eager until it is upgraded: every rebalance stops every task. The bot asks for approval first.",
          "Click Approve as the outsider (refused, only you see why), then as the approver.",
        ],
        sim: baseSim({ workerOverrides: { "worker-2": { version: "2.2.2" } } }),
        declared: { delayMs: T.delayMs },
      };
    case "slow-gate":
      return {
        name,
        title: "The rebalance delay is longer than declared",
        command: COMMAND,
        note: [
          `Type ${COMMAND} as the requester.`,
          "The config declares a 3 s scheduled rebalance delay, but the workers really hold a restarted worker's tasks for 13 s. 7 s after the declared deadline the settle gate is overdue and the bot asks, at each follower step: Keep waiting, Continue anyway or Abort. Click Keep waiting as the approver and watch the held tasks come back when the real delay ends.",
        ],
        sim: baseSim({ delayMs: 13_000 }),
        declared: { delayMs: 3_000, slowAfterMs: 7_000 },
      };
    case "crash":
      return {
        name,
        title: "A worker crashes during the rollout",
        command: COMMAND,
        note: [
          `Type ${COMMAND} as the requester.`,
          "When the second restarted worker is back, the first one (already upgraded) crashes without leaving the group. For the session timeout (4 s) its task chips stay green with a dashed red outline: the status topic still says RUNNING, but nobody runs them. The gate must not pass on that stale RUNNING: step 2 keeps waiting (its reply says why) while the group notices, moves the tasks and the worker starts again, and only then settles, noticeably later than the other steps.",
        ],
        sim: baseSim(),
        declared: { delayMs: T.delayMs },
        during: crashSecondStep,
      };
    case "stall":
      return {
        name,
        title: "A task RUNNING with no data after its worker's restart",
        command: COMMAND,
        note: [
          `Type ${COMMAND} as the requester.`,
          "When the first restarted worker gets its tasks back, one of them stays RUNNING but moves no data (its chip is striped). Statuses alone would call the step done; the gate watches each task's records and, after 8 s without data, asks: Keep waiting, Continue anyway or Abort, naming the task and when it last moved data. Click Keep waiting as the approver: the task moves data again 20 s after it stalled and the rollout goes on.",
        ],
        sim: baseSim(),
        declared: { delayMs: T.delayMs, stallAfterMs: 8_000 },
        during: stallFirstStep,
      };
  }
}

/** When the first restarted worker is back and holds tasks again, stall one of its tasks for 20 s. */
function stallFirstStep(sim: RunningSim, log: (line: string) => void, logger: Logger): () => void {
  const timers = new Set<NodeJS.Timeout>();
  let restarted: string | null = null;
  let done = false;
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const watch = () => {
    if (done || restarted === null) return;
    const state = sim.cluster.state();
    const worker = state.workers.find((w) => w.name === restarted);
    const task = worker?.tasks[0];
    if (task === undefined) return later(250, watch);
    done = true;
    const [connector, id] = [
      task.slice(0, task.lastIndexOf("/")),
      Number(task.slice(task.lastIndexOf("/") + 1)),
    ];
    const stalled = sim.cluster.stallTask(connector, id, 20_000);
    if (stalled.kind !== "ok") return logger.warn({ task, stalled }, "demo stall refused");
    log(`${task} on ${restarted} is RUNNING but moves no data (for 20 s)`);
    later(20_000, () => log(`${task} moves data again`));
  };
  const off = sim.cluster.onEvent((event) => {
    if (event.kind !== "worker-up" || restarted !== null) return;
    restarted = event.worker;
    watch();
  });
  return () => {
    off();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}

/** On the second worker coming back after a restart, crash the first restarted worker, then start it again. */
function crashSecondStep(sim: RunningSim, log: (line: string) => void, logger: Logger): () => void {
  const restarted: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let done = false;
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const off = sim.cluster.onEvent((event) => {
    if (event.kind !== "worker-up" || done) return;
    if (!restarted.includes(event.worker)) restarted.push(event.worker);
    const victim = restarted[0];
    if (restarted.length < 2 || victim === undefined) return;
    done = true;
    later(500, () => {
      const stopped = sim.cluster.stopWorker(victim, "crash");
      if (stopped.kind !== "ok") return logger.warn({ victim, stopped }, "demo crash refused");
      log(`${victim} crashed (no graceful leave: its tasks still read RUNNING)`);
      later(T.sessionTimeoutMs + 2_000, () => {
        const started = sim.cluster.startWorker(victim);
        if (started.kind === "ok") log(`${victim} is starting again`);
        else logger.warn({ victim, started }, "demo restart refused");
      });
    });
  });
  return () => {
    off();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
