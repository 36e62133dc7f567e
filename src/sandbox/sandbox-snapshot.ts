import type { SimState } from "../sim/sim-types.js";
import type { StoredEphemeral, StoredMessage, WebApiStore } from "./web-api-store.js";

/**
 * What the sandbox page renders, pushed over server-sent events: the channel (parents with their replies, and thread
 * replies also sent to the channel), every ephemeral (the page shows only the selected user's), each user's App Home
 * tab, the simulated cluster, the scenario and its log.
 */
export interface SandboxUser {
  readonly id: string;
  readonly name: string;
  readonly role: string;
}

export interface SandboxInfo {
  readonly channel: { readonly id: string; readonly name: string };
  readonly users: readonly SandboxUser[];
  readonly groups: Readonly<Record<string, string>>;
  readonly bot: { readonly userId: string; readonly name: string };
  readonly scenario: {
    readonly name: string;
    readonly title: string;
    readonly note: readonly string[];
    readonly command: string;
  };
}

export interface MessageView {
  readonly ts: string;
  readonly user: string;
  readonly text: string;
  readonly blocks: readonly unknown[];
  readonly edited: boolean;
  /** A thread reply also sent to the channel (`reply_broadcast`). */
  readonly broadcast: boolean;
  /** Files shared with it (the page shows images inline, as Slack does). */
  readonly files: readonly FileView[];
}

export interface FileView {
  readonly name: string;
  readonly title: string;
  readonly mimetype: string;
  readonly altText: string;
  /** Where the fake Web API serves the bytes. */
  readonly url: string;
}

/** A broadcast thread reply as the channel shows it: "replied to a thread". */
export interface BroadcastView extends MessageView {
  readonly threadTs: string;
}

export interface ParentView extends MessageView {
  readonly replies: readonly MessageView[];
}

export interface EphemeralView extends MessageView {
  readonly threadTs: string | null;
}

export interface WorkerView {
  readonly name: string;
  readonly version: string;
  readonly state: string;
  readonly leader: boolean;
  readonly protocol: string;
  readonly restarts: number;
  /** Tasks whose status names this worker (a crashed worker keeps stale RUNNING ones). */
  readonly tasks: readonly { readonly id: string; readonly state: string }[];
}

export interface ClusterView {
  readonly now: number;
  readonly protocol: string;
  readonly generation: number;
  readonly leader: string | null;
  readonly workers: readonly WorkerView[];
  readonly heldTasks: readonly string[];
  readonly unassigned: readonly { readonly id: string; readonly state: string }[];
  readonly delayDeadline: number | null;
  readonly counters: {
    readonly taskMoves: number;
    readonly taskInterruptions: number;
    readonly rebalances: number;
    readonly eagerRebalances: number;
    readonly restarts: number;
  };
}

export interface SandboxSnapshot extends SandboxInfo {
  readonly messages: readonly ParentView[];
  readonly broadcasts: readonly BroadcastView[];
  /** user id → the blocks of their Home tab, as last published (absent until they open it). */
  readonly homes: Readonly<Record<string, readonly unknown[]>>;
  readonly ephemerals: readonly EphemeralView[];
  readonly cluster: ClusterView;
  readonly log: readonly string[];
}

function messageView(m: StoredMessage): MessageView {
  return {
    ts: m.ts,
    user: m.user,
    text: m.text,
    blocks: m.blocks ?? [],
    edited: m.edits > 0,
    broadcast: m.broadcast === true,
    files: (m.files ?? []).map((f) => ({
      name: f.name,
      title: f.title,
      mimetype: f.mimetype,
      altText: f.altText ?? f.title,
      url: f.url,
    })),
  };
}

function ephemeralView(e: StoredEphemeral): EphemeralView {
  return {
    ts: e.ts,
    user: e.user,
    text: e.text,
    blocks: e.blocks ?? [],
    edited: false,
    broadcast: false,
    files: [],
    threadTs: e.threadTs ?? null,
  };
}

export function clusterView(state: SimState): ClusterView {
  const byWorkerId = new Map(state.workers.map((w) => [w.workerId, w.name]));
  const held = new Set(state.heldTasks);
  const stalled = new Set(state.dataFlow.stalled);
  const tasksOf = new Map<string, { id: string; state: string }[]>();
  const unassigned: { id: string; state: string }[] = [];
  for (const task of state.tasks) {
    const owner = task.workerId === null ? undefined : byWorkerId.get(task.workerId);
    const chip = {
      id: task.id,
      state:
        held.has(task.id) && task.state === "UNASSIGNED"
          ? "HELD"
          : stalled.has(task.id) && task.state === "RUNNING"
            ? "STALLED"
            : task.state,
    };
    if (owner === undefined) unassigned.push(chip);
    else tasksOf.set(owner, [...(tasksOf.get(owner) ?? []), chip]);
  }
  return {
    now: state.now,
    protocol: state.protocol,
    generation: state.generation,
    leader: state.leader,
    workers: state.workers.map((w) => ({
      name: w.name,
      version: w.version,
      state: w.state,
      leader: state.leader === w.name,
      protocol: w.connectProtocol,
      restarts: state.counters.restarts[w.name] ?? 0,
      tasks: tasksOf.get(w.name) ?? [],
    })),
    heldTasks: state.heldTasks,
    unassigned,
    delayDeadline: state.delayDeadline,
    counters: {
      taskMoves: state.counters.taskMoves,
      taskInterruptions: state.counters.taskInterruptions,
      rebalances: state.counters.rebalances,
      eagerRebalances: state.counters.eagerRebalances,
      restarts: Object.values(state.counters.restarts).reduce((a, b) => a + b, 0),
    },
  };
}

export function buildSnapshot(
  info: SandboxInfo,
  store: WebApiStore,
  sim: SimState,
  log: readonly string[],
): SandboxSnapshot {
  const channel = info.channel.id;
  const messages = store.channelMessages(channel).map((parent) => ({
    ...messageView(parent),
    replies: (store.thread(channel, parent.ts)?.replies ?? []).map(messageView),
  }));
  const broadcasts = store
    .channelTimeline(channel)
    .filter((m) => m.broadcast === true && m.threadTs !== undefined)
    .map((m) => ({ ...messageView(m), threadTs: m.threadTs ?? "" }));
  const homes: Record<string, readonly unknown[]> = {};
  for (const user of info.users) {
    const home = store.home(user.id);
    const blocks = home?.view.blocks;
    if (Array.isArray(blocks)) homes[user.id] = blocks;
  }
  return {
    ...info,
    messages,
    broadcasts,
    homes,
    ephemerals: store.ephemerals(channel).map(ephemeralView),
    cluster: clusterView(sim),
    log,
  };
}
