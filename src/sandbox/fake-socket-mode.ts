import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { acceptWebSocket, type WebSocketConnection } from "./websocket-server.js";

/**
 * Slack's side of Socket Mode, on loopback, for tests and the sandbox. `apps.connections.open` (the fake Web API)
 * hands out a single-use `ws://…/link/?ticket=…` URL; a client that connects gets `hello`, then envelopes
 * (`slash_commands`, `interactive`, `events_api`), each to be acknowledged by its `envelope_id` within
 * `ackTimeoutMs`, as Slack requires within 3 s. Like Slack:
 * - an envelope sent while no connection is open waits for the next one;
 * - an envelope not acknowledged when its connection closes is delivered again on the next connection
 *   (`retry_attempt` + 1, `retry_reason: "connection_closed"`), as is an `events_api` envelope not acknowledged in
 *   time (`retry_reason: "timeout"`); a slash command or click acknowledged late is recorded as late: Slack shows
 *   the user a timeout and drops the late ack's payload;
 * - `requestRefresh()` sends `{type: "disconnect", reason: "refresh_requested"}`: the client reconnects.
 */
export type EnvelopeType = "slash_commands" | "interactive" | "events_api";

export interface EnvelopeRecord {
  readonly envelopeId: string;
  readonly type: EnvelopeType;
  readonly payload: Record<string, unknown>;
  /** How many times it was sent (1 = never redelivered). */
  deliveries: number;
  /** Acks received for it (a second one would be a client bug). */
  acks: number;
  /** The payload of the first ack (a slash command's ephemeral answer), null without one. */
  ackPayload: Record<string, unknown> | null;
  /** Acked after `ackTimeoutMs` from its first delivery: Slack would have shown the user an error. */
  late: boolean;
  /** Whether the deadline passed without an ack. */
  timedOut: boolean;
}

export interface AckOutcome {
  readonly envelopeId: string;
  /** Null when the client acked with no payload (or the ack came late and Slack dropped it). */
  readonly payload: Record<string, unknown> | null;
  readonly late: boolean;
}

export interface FakeSocketModeOptions {
  /** Least time to an ack before Slack gives up on it; default 3000. */
  ackTimeoutMs?: number;
  /** How often the server pings each connection; default 5000 (the client gives up after 30 s without one). */
  pingIntervalMs?: number;
  appId?: string;
}

export interface FakeSocketMode {
  /** What `apps.connections.open` answers: a fresh single-use URL. */
  openConnectionUrl(): string;
  /** Sends an envelope (now, or on the next connection) and resolves with its first ack. */
  deliver(type: EnvelopeType, payload: Record<string, unknown>): Promise<AckOutcome>;
  /** Open connections (that got `hello`). */
  connections(): number;
  /** Connections opened since start (reconnects included). */
  connectionsOpened(): number;
  /** Every envelope so far, in delivery order. */
  envelopes(): readonly EnvelopeRecord[];
  /** `disconnect` (`refresh_requested`) to every open connection: the clients reconnect. */
  requestRefresh(reason?: "refresh_requested" | "warning" | "link_disabled"): void;
  /** Drops every connection without a closing handshake (a network failure). */
  dropConnections(): void;
  /** The next `n` acks get lost on the way (Slack never sees them): their envelopes are delivered again. */
  loseNextAcks(n: number): void;
  /** The fake Web API's `upgrade` handler. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

interface Pending {
  readonly record: EnvelopeRecord;
  firstSentAt: number | null;
  connection: WebSocketConnection | null;
  resolve: (outcome: AckOutcome) => void;
  reject: (error: Error) => void;
  deadline: NodeJS.Timeout | undefined;
  retryReason: string;
}

export function createFakeSocketMode(
  baseWsUrl: () => string,
  options: FakeSocketModeOptions = {},
): FakeSocketMode {
  const ackTimeoutMs = options.ackTimeoutMs ?? 3000;
  const appId = options.appId ?? "A0SANDBOX";
  const tickets = new Set<string>();
  const open: WebSocketConnection[] = [];
  const records: EnvelopeRecord[] = [];
  const pending = new Map<string, Pending>();
  const waiting: Pending[] = [];
  /** Connections told to disconnect: Slack sends them nothing new. */
  const retiring = new Set<WebSocketConnection>();
  let acksToLose = 0;
  let opened = 0;
  let closed = false;
  const pinger = setInterval(() => {
    for (const c of open) c.ping("sandbox");
  }, options.pingIntervalMs ?? 5000);
  pinger.unref();

  function envelopeJson(p: Pending): string {
    const { record } = p;
    return JSON.stringify({
      envelope_id: record.envelopeId,
      type: record.type,
      payload: record.payload,
      accepts_response_payload: record.type !== "events_api",
      ...(record.type === "events_api"
        ? { retry_attempt: record.deliveries - 1, retry_reason: p.retryReason }
        : {}),
    });
  }

  function send(p: Pending): void {
    const connection = open.filter((c) => !retiring.has(c)).at(-1);
    if (connection === undefined) {
      waiting.push(p);
      return;
    }
    p.connection = connection;
    p.record.deliveries += 1;
    if (p.firstSentAt === null) {
      p.firstSentAt = Date.now();
      p.deadline = setTimeout(() => timeout(p), ackTimeoutMs);
    }
    connection.sendText(envelopeJson(p));
  }

  function timeout(p: Pending): void {
    if (p.record.acks > 0) return;
    p.record.timedOut = true;
    if (p.record.type === "events_api" && p.record.deliveries < 4) {
      p.retryReason = "timeout";
      p.firstSentAt = null;
      send(p);
    }
  }

  function onAck(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null || !("envelope_id" in message)) return;
    const id = String(message.envelope_id);
    const record = records.find((r) => r.envelopeId === id);
    if (record === undefined) return;
    if (acksToLose > 0) {
      acksToLose -= 1;
      return;
    }
    record.acks += 1;
    const p = pending.get(id);
    if (p === undefined) return;
    pending.delete(id);
    clearTimeout(p.deadline);
    const late = p.firstSentAt !== null && Date.now() - p.firstSentAt > ackTimeoutMs;
    const raw = "payload" in message ? message.payload : undefined;
    const payload =
      typeof raw === "object" && raw !== null && Object.keys(raw).length > 0 && !late
        ? (raw as Record<string, unknown>)
        : null;
    record.late = late;
    record.ackPayload = payload;
    p.resolve({ envelopeId: id, payload, late });
  }

  function connectionClosed(connection: WebSocketConnection): void {
    retiring.delete(connection);
    const index = open.indexOf(connection);
    if (index >= 0) open.splice(index, 1);
    for (const p of pending.values()) {
      if (p.connection !== connection) continue;
      p.connection = null;
      p.retryReason = "connection_closed";
      if (!closed) waiting.push(p);
    }
    if (open.some((c) => !retiring.has(c))) flushWaiting();
  }

  function flushWaiting(): void {
    const queued = waiting.splice(0);
    for (const p of queued) send(p);
  }

  return {
    openConnectionUrl() {
      const ticket = randomUUID();
      tickets.add(ticket);
      return `${baseWsUrl()}/link/?ticket=${ticket}&app_id=${appId}`;
    },
    deliver(type, payload) {
      const record: EnvelopeRecord = {
        envelopeId: randomUUID(),
        type,
        payload,
        deliveries: 0,
        acks: 0,
        ackPayload: null,
        late: false,
        timedOut: false,
      };
      records.push(record);
      return new Promise<AckOutcome>((resolve, reject) => {
        if (closed) {
          reject(new Error("socket mode closed"));
          return;
        }
        const p: Pending = {
          record,
          firstSentAt: null,
          connection: null,
          resolve,
          reject,
          deadline: undefined,
          retryReason: "",
        };
        pending.set(record.envelopeId, p);
        send(p);
      });
    },
    connections: () => open.length,
    connectionsOpened: () => opened,
    envelopes: () => records,
    requestRefresh(reason = "refresh_requested") {
      for (const c of [...open]) {
        retiring.add(c);
        c.sendText(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "sandbox" } }));
      }
    },
    loseNextAcks(n) {
      acksToLose += n;
    },
    dropConnections() {
      for (const c of [...open]) c.terminate();
    },
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? "/", "http://localhost");
      const ticket = url.searchParams.get("ticket") ?? "";
      if (closed || url.pathname !== "/link/" || !tickets.delete(ticket)) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n");
        return;
      }
      const connection = acceptWebSocket(request, socket, head);
      if (connection === undefined) return;
      connection.onText(onAck);
      connection.onClose(() => connectionClosed(connection));
      open.push(connection);
      opened += 1;
      connection.sendText(
        JSON.stringify({
          type: "hello",
          num_connections: open.length,
          debug_info: { host: "sandbox", approximate_connection_time: 3600 },
          connection_info: { app_id: appId },
        }),
      );
      flushWaiting();
    },
    close() {
      closed = true;
      clearInterval(pinger);
      for (const c of [...open]) c.terminate();
      for (const p of pending.values()) {
        clearTimeout(p.deadline);
        p.reject(new Error("socket mode closed"));
      }
      pending.clear();
      waiting.length = 0;
    },
  };
}
