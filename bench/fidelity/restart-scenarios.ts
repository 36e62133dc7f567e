import type { FidelityState } from "./cluster-driver.js";
import {
  delta,
  follower,
  happens,
  type Scenario,
  sameSet,
  settle,
  steady,
  tasksOf,
} from "./scenario-support.js";

/** The base cluster's restart scenarios. */
export const RESTART_SCENARIOS: readonly Scenario[] = [
  {
    name: "follower-bounce",
    summary: "a follower restarted inside the delay",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      const t0 = s0.now;
      await c.control(`/sim/workers/${f.name}/restart`);
      const held = await c.until(
        "held",
        (s) => s.delayDeadline !== null && f.tasks.every((t) => s.heldTasks.includes(t)),
        shape.delayMs,
      );
      const back = await c.until("back", steady, shape.delayMs * 2 + 60_000);
      const own = tasksOf(back, f.name);
      return [
        { name: "its tasks are held by the delay", value: true },
        { name: "deadline after the stop (ms)", value: (held.delayDeadline ?? 0) - t0, tolerance: 3_000 },
        { name: "tasks back after (ms)", value: back.now - t0, tolerance: 4_000 },
        { name: "its tasks come back to it", value: sameSet(own, f.tasks) },
        { name: "moves", value: delta(s0, back, "taskMoves") },
        { name: "interruptions", value: delta(s0, back, "taskInterruptions") },
        { name: "leader unchanged", value: back.leader === s0.leader },
      ];
    },
  },
  {
    name: "two-bounces-one-window",
    summary: "a second follower bounced while the first one's tasks are held",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f1 = follower(s0);
      const f2 = follower(s0, [f1.name]);
      await c.control(`/sim/workers/${f1.name}/restart`);
      const first = await c.until("first held", (s) => s.delayDeadline !== null, shape.delayMs);
      await c.pass(2_000);
      await c.control(`/sim/workers/${f2.name}/restart`);
      const second = await c.until(
        "both held",
        (s) => f2.tasks.every((t) => s.heldTasks.includes(t)) && s.delayDeadline !== null,
        shape.delayMs,
      );
      const back = await c.until("back", steady, shape.delayMs * 2 + 60_000);
      return [
        {
          name: "one deadline for both",
          value: Math.abs((second.delayDeadline ?? 0) - (first.delayDeadline ?? 0)) < 1_500,
        },
        {
          name: "held tasks go back to the window's two workers",
          value: sameSet([...tasksOf(back, f1.name), ...tasksOf(back, f2.name)], [...f1.tasks, ...f2.tasks]),
        },
        { name: "moves (between the window's workers)", value: delta(s0, back, "taskMoves") },
        { name: "interruptions", value: delta(s0, back, "taskInterruptions") },
      ];
    },
  },
  {
    name: "leader-bounce",
    summary: "the leader restarted",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const leader = s0.leader;
      const own = tasksOf(s0, leader);
      const t0 = s0.now;
      await c.control(`/sim/workers/${leader}/restart`);
      const moved = await c.until(
        "the old leader's tasks run elsewhere or back",
        (s) => s.leader !== null && s.leader !== leader && own.every((t) => !s.heldTasks.includes(t)),
        shape.delayMs * 2 + 60_000,
      );
      const back = await settle(c, shape);
      return [
        { name: "a new leader is elected", value: moved.leader !== leader },
        { name: "its tasks are reassigned before the delay", value: moved.now - t0 < shape.delayMs },
        { name: "no delay deadline once it is back", value: back.delayDeadline === null },
        { name: "moves > 0", value: delta(s0, back, "taskMoves") > 0 },
      ];
    },
  },
  {
    name: "crash-vs-graceful",
    summary: "a follower crashed (SIGKILL), then started again",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      const workerId = s0.workers.find((w) => w.name === f.name)?.workerId ?? "";
      await c.control(`/sim/workers/${f.name}/stop?mode=crash`);
      const after = await c.state();
      const stale = after.tasks.filter((t) => f.tasks.includes(t.id));
      const noticed = await c.until(
        "the group notices",
        (s) => s.delayDeadline !== null,
        shape.sessionTimeoutMs * 3 + 30_000,
      );
      await c.control(`/sim/workers/${f.name}/start`);
      const back = await settle(c, shape);
      return [
        {
          name: "statuses stay RUNNING on the dead worker",
          value: stale.every((t) => t.state === "RUNNING" && t.workerId === workerId),
        },
        { name: "noticed after (ms)", value: noticed.now - after.now, tolerance: 3_000 },
        {
          name: "its tasks come back to it",
          value: sameSet(tasksOf(back, f.name), f.tasks),
        },
        { name: "interruptions", value: delta(s0, back, "taskInterruptions") },
      ];
    },
  },
  {
    name: "graceful-stop-statuses",
    summary:
      "a follower stopped gracefully (SIGTERM), its tasks running for a while: what REST shows while it is away",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape, 15_000);
      const f = follower(s0);
      await c.control(`/sim/workers/${f.name}/stop?mode=graceful`);
      const away = await c.until(
        "its tasks unassigned",
        (s) => f.tasks.every((t) => s.tasks.find((x) => x.id === t)?.state === "UNASSIGNED"),
        15_000,
      );
      const opened = await happens(c, "a delay deadline", (s) => s.delayDeadline !== null, shape.delayMs);
      const wid = s0.workers.find((w) => w.name === f.name)?.workerId;
      await c.control(`/sim/workers/${f.name}/start`);
      await settle(c, shape);
      return [
        { name: "its tasks are UNASSIGNED", value: true },
        {
          name: "with the old worker id",
          value: f.tasks.every((t) => away.tasks.find((x) => x.id === t)?.workerId === wid),
        },
        { name: "a delay deadline opens", value: opened },
      ];
    },
  },
  {
    name: "graceful-stop-right-after-start",
    summary:
      "a follower stopped gracefully moments after its tasks came back: what REST shows while it is away",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      const wid = s0.workers.find((w) => w.name === f.name)?.workerId;
      const onIt = (s: FidelityState) =>
        f.tasks.every((t) => {
          const x = s.tasks.find((y) => y.id === t);
          return x?.state === "RUNNING" && x.workerId === wid;
        });
      await c.control(`/sim/workers/${f.name}/stop?mode=graceful`);
      await c.control(`/sim/workers/${f.name}/start`);
      // The delay hands its tasks back to it at the deadline: they have just started when it stops again.
      await c.until(
        "its tasks back on it",
        (s) => s.heldTasks.length === 0 && onIt(s),
        shape.delayMs * 2 + 60_000,
      );
      await c.control(`/sim/workers/${f.name}/stop?mode=graceful`);
      const away = await c.state();
      const stale = f.tasks.filter((t) => {
        const x = away.tasks.find((y) => y.id === t);
        return x?.state === "RUNNING" && x.workerId === wid;
      }).length;
      await c.control(`/sim/workers/${f.name}/start`);
      await settle(c, shape);
      return [{ name: "some of its tasks keep a stale RUNNING", value: stale > 0 }];
    },
  },
  {
    name: "restart-longer-than-delay",
    summary: "a follower away for longer than the delay",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      const t0 = s0.now;
      await c.control(`/sim/workers/${f.name}/stop?mode=graceful`);
      const reassigned = await c.until(
        "reassigned to survivors",
        (s) =>
          s.heldTasks.length === 0 &&
          f.tasks.every((t) => s.tasks.find((x) => x.id === t)?.state === "RUNNING"),
        shape.delayMs * 2 + 60_000,
      );
      const mid = await c.state();
      await c.control(`/sim/workers/${f.name}/start`);
      const back = await c.until(
        "it gets work again",
        (s) => steady(s) && tasksOf(s, f.name).length > 0,
        shape.delayMs * 3 + 120_000,
      );
      return [
        {
          name: "its tasks go to survivors at the deadline (ms)",
          value: reassigned.now - t0,
          tolerance: 4_000,
        },
        { name: "moves while it is away", value: delta(s0, mid, "taskMoves") },
        {
          name: "it gets tasks again (revoked from others)",
          value: tasksOf(back, f.name).length > 0,
        },
        { name: "interruptions when it is back > 0", value: delta(mid, back, "taskInterruptions") > 0 },
      ];
    },
  },
  {
    name: "tasks-max-changed",
    summary: "a connector's tasks.max raised while a follower's tasks are held",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      await c.control(`/sim/workers/${f.name}/restart`);
      await c.until("held", (s) => s.delayDeadline !== null, shape.delayMs);
      const connector = s0.tasks[0]?.id.split("/")[0] ?? "conn-01";
      const before = s0.tasks.filter((t) => t.id.startsWith(`${connector}/`)).length;
      const status = await c.putConnector(connector, { tasksMax: before + 1 });
      const grown = await c.until(
        "the new task runs",
        (s) => s.tasks.some((t) => t.id === `${connector}/${before}` && t.state === "RUNNING"),
        shape.delayMs * 2 + 60_000,
      );
      const back = await settle(c, shape);
      const newTask = `${connector}/${before}`;
      await c.putConnector(connector, { tasksMax: before });
      await settle(c, shape);
      return [
        { name: "PUT accepted", value: status === 200 },
        {
          name: "the new task runs before the deadline",
          value:
            grown.delayDeadline !== null &&
            grown.tasks.some((t) => t.id === newTask && t.state === "RUNNING"),
        },
        {
          name: "the held tasks come back to their worker",
          value: f.tasks.every((t) => tasksOf(back, f.name).includes(t)),
        },
      ];
    },
  },
];
