import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/**
 * The server side of a WebSocket (RFC 6455), just enough to stand in for Slack's Socket Mode endpoint: the opening
 * handshake, text frames both ways (fragmented ones reassembled), ping/pong and the closing handshake. Frames from
 * the client are masked (as the RFC requires); ours are not. No extensions, no binary messages.
 */
export interface WebSocketConnection {
  sendText(text: string): void;
  ping(payload?: string): void;
  /** Starts the closing handshake; the socket ends once the client answers (or after 1 s). */
  close(code?: number, reason?: string): void;
  /** Drops the TCP connection at once, as a network failure would. */
  terminate(): void;
  readonly open: boolean;
  onText(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
}

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const MAX_MESSAGE_BYTES = 4_000_000;
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Answers an HTTP `upgrade` request; undefined (socket destroyed with a 400) when it is not a WebSocket handshake. */
export function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): WebSocketConnection | undefined {
  const key = request.headers["sec-websocket-key"];
  if (typeof key !== "string" || request.headers.upgrade?.toLowerCase() !== "websocket") {
    socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    return undefined;
  }
  const accept = createHash("sha1").update(`${key}${GUID}`).digest("base64");
  socket.write(
    [
      "HTTP/1.1 101 Switching Protocols",
      "upgrade: websocket",
      "connection: Upgrade",
      `sec-websocket-accept: ${accept}`,
      "",
      "",
    ].join("\r\n"),
  );
  return connectionOver(socket, head);
}

function connectionOver(socket: Duplex, head: Buffer): WebSocketConnection {
  const textListeners = new Set<(text: string) => void>();
  const closeListeners = new Set<() => void>();
  let buffer: Buffer = head.length > 0 ? Buffer.from(head) : Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let open = true;
  let closeSent = false;
  let closeTimer: NodeJS.Timeout | undefined;

  function frame(opcode: number, payload: Buffer): void {
    if (socket.destroyed) return;
    const length = payload.length;
    const header =
      length < 126
        ? Buffer.from([0x80 | opcode, length])
        : length < 65_536
          ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
          : (() => {
              const h = Buffer.alloc(10);
              h[0] = 0x80 | opcode;
              h[1] = 127;
              h.writeBigUInt64BE(BigInt(length), 2);
              return h;
            })();
    socket.write(Buffer.concat([header, payload]));
  }

  function ended(): void {
    if (!open && closeListeners.size === 0) return;
    open = false;
    clearTimeout(closeTimer);
    const listeners = [...closeListeners];
    closeListeners.clear();
    for (const listener of listeners) listener();
  }

  function sendClose(code: number, reason: string): void {
    if (closeSent) return;
    closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    frame(OP.close, payload);
  }

  /** Parses as many complete frames as the buffer holds. */
  function parse(): void {
    for (;;) {
      if (buffer.length < 2) return;
      const first = buffer[0] ?? 0;
      const second = buffer[1] ?? 0;
      const fin = (first & 0x80) !== 0;
      const opcode = first & 0x0f;
      const masked = (second & 0x80) !== 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (length > MAX_MESSAGE_BYTES) {
        sendClose(1009, "message too big");
        socket.destroy();
        return;
      }
      const maskAt = offset;
      if (masked) offset += 4;
      if (buffer.length < offset + length) return;
      const payload = Buffer.from(buffer.subarray(offset, offset + length));
      if (masked)
        for (let i = 0; i < payload.length; i += 1)
          payload[i] = (payload[i] ?? 0) ^ (buffer[maskAt + (i % 4)] ?? 0);
      buffer = buffer.subarray(offset + length);
      handle(fin, opcode, payload);
    }
  }

  function handle(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OP.text:
      case OP.continuation:
        fragments.push(payload);
        if (!fin) return;
        {
          const text = Buffer.concat(fragments).toString("utf8");
          fragments = [];
          for (const listener of textListeners) listener(text);
        }
        return;
      case OP.ping:
        frame(OP.pong, payload);
        return;
      case OP.pong:
      case OP.binary:
        return;
      case OP.close:
        sendClose(payload.length >= 2 ? payload.readUInt16BE(0) : 1000, "");
        socket.end();
        ended();
        return;
      default:
        sendClose(1002, "unknown opcode");
        socket.destroy();
    }
  }

  socket.on("data", (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    parse();
  });
  socket.on("close", ended);
  socket.on("error", () => socket.destroy());
  if (buffer.length > 0) queueMicrotask(parse);

  return {
    sendText: (text) => {
      if (open && !closeSent) frame(OP.text, Buffer.from(text, "utf8"));
    },
    ping: (payload = "") => {
      if (open && !closeSent) frame(OP.ping, Buffer.from(payload, "utf8"));
    },
    close(code = 1000, reason = "") {
      if (!open) return;
      sendClose(code, reason);
      closeTimer = setTimeout(() => socket.destroy(), 1000);
      closeTimer.unref();
    },
    terminate() {
      socket.destroy();
      ended();
    },
    get open() {
      return open && !socket.destroyed;
    },
    onText: (listener) => {
      textListeners.add(listener);
    },
    onClose: (listener) => {
      if (!open) listener();
      else closeListeners.add(listener);
    },
  };
}
