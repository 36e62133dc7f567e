import type { IncomingMessage, ServerResponse } from "node:http";

/** Small helpers for the simulator's `node:http` servers. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Connect's error entity: `{ "error_code": 404, "message": "…" }`. */
export function sendConnectError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error_code: status, message });
}

const MAX_BODY = 1_000_000;

/** Reads a request body as JSON; resolves `undefined` for an empty body, rejects on bad JSON or size. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) throw new Error("request body too large");
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return undefined;
  return JSON.parse(text) as unknown;
}

export function requestUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? "/", "http://sim.invalid");
}

/** Splits "/connectors/a%2Fb/status" into decoded segments. */
export function pathSegments(url: URL): string[] {
  return url.pathname
    .split("/")
    .filter((s) => s !== "")
    .map((s) => decodeURIComponent(s));
}
