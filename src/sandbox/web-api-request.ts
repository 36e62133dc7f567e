import type { IncomingMessage } from "node:http";

/**
 * Reading a Web API request the way Slack does: arguments from the query string and from the body, which
 * is JSON or form-encoded (where structured arguments such as `blocks` arrive as JSON strings); the token
 * from `Authorization: Bearer …` or the `token` argument.
 */
export type WebApiParams = Record<string, unknown>;

const MAX_BODY_BYTES = 1_000_000;
const JSON_ARGUMENTS = new Set(["blocks", "attachments", "metadata", "users", "view", "files"]);

export type ReadResult =
  | { kind: "ok"; params: WebApiParams; token?: string }
  | { kind: "error"; error: string };

export async function readWebApiRequest(request: IncomingMessage, url: URL): Promise<ReadResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return { kind: "error", error: "request_too_large" };
    chunks.push(buffer);
  }
  const raw = Buffer.concat(chunks).toString("utf8");
  const params: WebApiParams = Object.fromEntries(url.searchParams);
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (raw.length > 0) {
    if (type === "application/json") {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return { kind: "error", error: "invalid_json" };
      }
      if (typeof body !== "object" || body === null || Array.isArray(body))
        return { kind: "error", error: "invalid_json" };
      Object.assign(params, body);
    } else {
      for (const [key, value] of new URLSearchParams(raw)) params[key] = parseArgument(key, value);
    }
  }
  const header = request.headers.authorization;
  const bearer = header?.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : undefined;
  const token = bearer ?? (typeof params.token === "string" ? params.token : undefined);
  delete params.token;
  return token === undefined ? { kind: "ok", params } : { kind: "ok", params, token };
}

function parseArgument(key: string, value: string): unknown {
  if (!JSON_ARGUMENTS.has(key)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function stringParam(params: WebApiParams, name: string): string | undefined {
  const value = params[name];
  if (typeof value === "string" && value.length > 0) return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

export function blocksParam(params: WebApiParams): unknown[] | undefined {
  const value = params.blocks;
  return Array.isArray(value) ? value : undefined;
}
