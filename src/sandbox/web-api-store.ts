/**
 * The in-memory workspace behind the fake Slack Web API: channels with their messages and threads,
 * ephemeral messages per user, user groups. Each change is announced to `onChange` listeners, so a page or
 * a test can re-render the channel live.
 */

export interface StoredMessage {
  channel: string;
  ts: string;
  /** The parent's ts when this is a thread reply. */
  threadTs?: string;
  /** The bot user that posted it. */
  user: string;
  text: string;
  blocks?: unknown[];
  /** How many times `chat.update` changed it. */
  edits: number;
  /** A thread reply also shown in the channel (`reply_broadcast`). */
  broadcast?: true;
  /** Files shared with the message (`files.completeUploadExternal`). */
  files?: StoredFile[];
}

/** A file shared in a message: what Slack's message JSON says of it, and where the fake serves its bytes. */
export interface StoredFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  size: number;
  altText?: string;
  /** `http://host:port/files/<id>` of the fake Web API. */
  url: string;
}

/** A user's App Home tab as last published (`views.publish`). */
export interface PublishedHome {
  user: string;
  id: string;
  view: Record<string, unknown>;
  /** How many times it was published. */
  publishes: number;
}

export interface StoredEphemeral {
  channel: string;
  user: string;
  /** The `message_ts` returned to the caller. */
  ts: string;
  threadTs?: string;
  text: string;
  blocks?: unknown[];
}

export interface ThreadView {
  parent: StoredMessage;
  replies: StoredMessage[];
}

export type StoreChange =
  | { kind: "message-posted"; message: StoredMessage }
  | { kind: "message-updated"; message: StoredMessage }
  | { kind: "ephemeral-posted"; ephemeral: StoredEphemeral }
  | { kind: "home-published"; home: PublishedHome };

export interface WebApiStore {
  postMessage(input: {
    channel: string;
    user: string;
    text: string;
    blocks?: unknown[];
    threadTs?: string;
    broadcast?: true;
    files?: StoredFile[];
  }): StoredMessage;
  /** Undefined when no such message exists. */
  updateMessage(input: {
    channel: string;
    ts: string;
    text: string;
    blocks?: unknown[];
  }): StoredMessage | undefined;
  postEphemeral(input: {
    channel: string;
    user: string;
    text: string;
    blocks?: unknown[];
    threadTs?: string;
  }): StoredEphemeral;
  /** Top-level messages of a channel, oldest first. */
  channelMessages(channel: string): StoredMessage[];
  /** What the channel shows: top-level messages and broadcast thread replies, oldest first. */
  channelTimeline(channel: string): StoredMessage[];
  publishHome(user: string, view: Record<string, unknown>): PublishedHome;
  home(user: string): PublishedHome | undefined;
  /** A parent and its replies in order; undefined when the parent is unknown. */
  thread(channel: string, parentTs: string): ThreadView | undefined;
  message(channel: string, ts: string): StoredMessage | undefined;
  ephemerals(channel: string, user?: string): StoredEphemeral[];
  channels(): string[];
  setUserGroup(groupId: string, users: readonly string[]): void;
  userGroup(groupId: string): string[] | undefined;
  onChange(listener: (change: StoreChange) => void): () => void;
}

export interface WebApiStoreOptions {
  /** Seconds of the first ts; default 1700000000. Each ts is unique and increasing ("1700000000.000100"). */
  startSeconds?: number;
}

export function createWebApiStore(options: WebApiStoreOptions = {}): WebApiStore {
  const byChannel = new Map<string, StoredMessage[]>();
  const ephemeralList: StoredEphemeral[] = [];
  const groups = new Map<string, string[]>();
  const homes = new Map<string, PublishedHome>();
  const listeners = new Set<(change: StoreChange) => void>();
  let counter = 0;
  const startSeconds = options.startSeconds ?? 1_700_000_000;

  function nextTs(): string {
    counter += 1;
    const micros = counter * 100;
    const seconds = startSeconds + Math.floor(micros / 1_000_000);
    return `${seconds}.${String(micros % 1_000_000).padStart(6, "0")}`;
  }

  function emit(change: StoreChange): void {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch {
        // A broken listener must not break the API.
      }
    }
  }

  function list(channel: string): StoredMessage[] {
    let messages = byChannel.get(channel);
    if (messages === undefined) {
      messages = [];
      byChannel.set(channel, messages);
    }
    return messages;
  }

  return {
    postMessage(input) {
      const message: StoredMessage = {
        channel: input.channel,
        ts: nextTs(),
        user: input.user,
        text: input.text,
        edits: 0,
        ...(input.blocks === undefined ? {} : { blocks: input.blocks }),
        ...(input.threadTs === undefined ? {} : { threadTs: input.threadTs }),
        ...(input.broadcast === true && input.threadTs !== undefined ? { broadcast: true as const } : {}),
        ...(input.files === undefined ? {} : { files: input.files }),
      };
      list(input.channel).push(message);
      emit({ kind: "message-posted", message });
      return message;
    },
    updateMessage(input) {
      const message = list(input.channel).find((m) => m.ts === input.ts);
      if (message === undefined) return undefined;
      message.text = input.text;
      // As in Slack: an update with text but no blocks removes the blocks.
      if (input.blocks === undefined) delete message.blocks;
      else message.blocks = input.blocks;
      message.edits += 1;
      emit({ kind: "message-updated", message });
      return message;
    },
    postEphemeral(input) {
      const ephemeral: StoredEphemeral = {
        channel: input.channel,
        user: input.user,
        ts: nextTs(),
        text: input.text,
        ...(input.blocks === undefined ? {} : { blocks: input.blocks }),
        ...(input.threadTs === undefined ? {} : { threadTs: input.threadTs }),
      };
      ephemeralList.push(ephemeral);
      emit({ kind: "ephemeral-posted", ephemeral });
      return ephemeral;
    },
    channelMessages: (channel) =>
      list(channel).filter((m) => m.threadTs === undefined || m.threadTs === m.ts),
    channelTimeline: (channel) =>
      list(channel).filter((m) => m.threadTs === undefined || m.threadTs === m.ts || m.broadcast === true),
    publishHome(user, view) {
      const previous = homes.get(user);
      const home: PublishedHome = {
        user,
        id: previous?.id ?? `V${String(homes.size + 1).padStart(8, "0")}`,
        view,
        publishes: (previous?.publishes ?? 0) + 1,
      };
      homes.set(user, home);
      emit({ kind: "home-published", home });
      return home;
    },
    home: (user) => homes.get(user),
    thread(channel, parentTs) {
      const messages = list(channel);
      const parent = messages.find((m) => m.ts === parentTs);
      if (parent === undefined) return undefined;
      return { parent, replies: messages.filter((m) => m.threadTs === parentTs && m.ts !== parentTs) };
    },
    message: (channel, ts) => list(channel).find((m) => m.ts === ts),
    ephemerals: (channel, user) =>
      ephemeralList.filter((e) => e.channel === channel && (user === undefined || e.user === user)),
    channels: () => [...byChannel.keys()],
    setUserGroup(groupId, users) {
      groups.set(groupId, [...users]);
    },
    userGroup: (groupId) => {
      const users = groups.get(groupId);
      return users === undefined ? undefined : [...users];
    },
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
