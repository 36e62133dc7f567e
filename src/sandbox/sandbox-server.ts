import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { BotClient } from "./sandbox-bot-client.js";
import type { SandboxSnapshot } from "./sandbox-snapshot.js";

/**
 * The sandbox page's server (127.0.0.1): the page itself (plain files next to this module, no CDN), `GET /events`
 * (server-sent events: a full snapshot on every change and every `tickMs` for the countdown), `GET /state` (the
 * same snapshot once), `POST /command`, `POST /click` and `POST /home` (the page acting as a person: typing, clicking,
 * opening the app's Home tab), and `POST /response/<user>`
 * (the `response_url` handed to the bot).
 */
export interface SandboxServerOptions {
  readonly host?: string;
  readonly port: number;
  readonly snapshot: () => SandboxSnapshot;
  readonly bot: () => BotClient;
  /** Subscribes to changes worth pushing at once; returns the unsubscribe. */
  readonly onChange: (listener: () => void) => () => void;
  readonly tickMs?: number;
  readonly logger: Logger;
}

export interface SandboxServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const PAGE_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/blocks.js": { file: "blocks.js", type: "text/javascript; charset=utf-8" },
  "/cluster.js": { file: "cluster.js", type: "text/javascript; charset=utf-8" },
  "/messages.js": { file: "messages.js", type: "text/javascript; charset=utf-8" },
  "/page-state.js": { file: "page-state.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
  "/cluster.css": { file: "cluster.css", type: "text/css; charset=utf-8" },
};
const PAGE_DIR = new URL("./page/", import.meta.url);
const MAX_BODY = 100_000;

export async function startSandboxServer(o: SandboxServerOptions): Promise<SandboxServer> {
  const log = o.logger.child({ component: "sandbox-server" });
  const clients = new Set<ServerResponse>();
  let pending: NodeJS.Timeout | undefined;

  function push(): void {
    pending = undefined;
    if (clients.size === 0) return;
    let data: string;
    try {
      data = `data: ${JSON.stringify(o.snapshot())}\n\n`;
    } catch (err) {
      log.warn({ err }, "snapshot failed");
      return;
    }
    for (const client of clients) client.write(data);
  }
  const soon = () => {
    pending ??= setTimeout(push, 50);
  };
  const unsubscribe = o.onChange(soon);
  const ticker = setInterval(push, o.tickMs ?? 500);

  const server = createServer((request, response) => {
    route(request, response).catch((err: unknown) => {
      log.warn({ err, url: request.url }, "sandbox request failed");
      json(response, 500, { ok: false, error: err instanceof Error ? err.message : String(err) });
    });
  });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://sandbox");
    const page = PAGE_FILES[url.pathname];
    if (request.method === "GET" && page !== undefined) {
      const body = await readFile(new URL(page.file, PAGE_DIR));
      response.writeHead(200, { "content-type": page.type, "cache-control": "no-store" });
      response.end(body);
      return;
    }
    if (request.method === "GET" && url.pathname === "/events") return openEvents(request, response);
    if (request.method === "GET" && url.pathname === "/state") return json(response, 200, o.snapshot());
    if (request.method === "GET" && url.pathname === "/favicon.ico") {
      response.writeHead(204).end();
      return;
    }
    if (request.method !== "POST") return json(response, 404, { ok: false, error: "not found" });
    const body = await readJson(request);
    if (body === undefined)
      return json(response, 400, { ok: false, error: "the body must be a JSON object" });
    const text = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : "");
    if (url.pathname === "/command") {
      if (text("user") === "") return json(response, 400, { ok: false, error: "user is required" });
      const result = await o.bot().command(text("user"), text("text"));
      return json(response, result.ok ? 200 : 400, result);
    }
    if (url.pathname === "/click") {
      const input = {
        user: text("user"),
        messageTs: text("messageTs"),
        actionId: text("actionId"),
        value: text("value"),
      };
      if (Object.values(input).some((v) => v === ""))
        return json(response, 400, { ok: false, error: "user, messageTs, actionId and value are required" });
      const result = await o.bot().click(input);
      return json(response, result.ok ? 200 : 400, result);
    }
    if (url.pathname === "/home") {
      if (text("user") === "") return json(response, 400, { ok: false, error: "user is required" });
      const result = await o.bot().openHome(text("user"));
      return json(response, result.ok ? 200 : 400, result);
    }
    const responseUser = /^\/response\/([A-Z0-9]+)$/.exec(url.pathname)?.[1];
    if (responseUser !== undefined) {
      const result = o.bot().respond(responseUser, body);
      return json(response, result.ok ? 200 : 400, result);
    }
    json(response, 404, { ok: false, error: "not found" });
  }

  function openEvents(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    response.write("retry: 1000\n\n");
    clients.add(response);
    request.on("close", () => clients.delete(response));
    soon();
  }

  const host = o.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        unsubscribe();
        clearInterval(ticker);
        if (pending !== undefined) clearTimeout(pending);
        for (const client of clients) client.end();
        clients.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let raw = "";
  for await (const chunk of request) {
    raw += Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk);
    if (raw.length > MAX_BODY) return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(raw === "" ? "{}" : raw);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
