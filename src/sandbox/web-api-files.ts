import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type WebApiReply, webApiError } from "./web-api-methods.js";
import { stringParam, type WebApiParams } from "./web-api-request.js";
import type { StoredFile, WebApiStore } from "./web-api-store.js";

/** Largest file the fake takes (a chart PNG is well under it). */
const MAX_FILE_BYTES = 5_000_000;

interface PendingFile {
  readonly id: string;
  readonly filename: string;
  readonly length: number;
  readonly altText: string | undefined;
  bytes: Buffer | null;
}

export interface FakeFiles {
  /** `files.getUploadURLExternal` and `files.completeUploadExternal`; null for any other method. */
  handle(method: string, params: WebApiParams, userId: string): WebApiReply | null;
  /** The upload (`POST /upload/<id>`) and the shared file's bytes (`GET /files/<id>`); false for any other path. */
  serve(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean>;
}

/**
 * Slack's external file upload, as the fake serves it: `files.getUploadURLExternal` hands out an upload URL on the
 * fake itself (loopback), the bytes are POSTed there (raw, as connect-roll sends them), and
 * `files.completeUploadExternal` shares the file: a message in the channel or thread whose `files` the page shows,
 * their bytes at `/files/<id>`.
 */
export function createFakeFiles(store: WebApiStore, baseUrl: () => string): FakeFiles {
  const files = new Map<string, PendingFile>();

  function getUploadUrl(params: WebApiParams): WebApiReply {
    const filename = stringParam(params, "filename");
    const length = Number(stringParam(params, "length"));
    if (filename === undefined) return webApiError("invalid_arguments");
    if (!Number.isInteger(length) || length <= 0 || length > MAX_FILE_BYTES)
      return webApiError("invalid_length");
    const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
    files.set(id, { id, filename, length, altText: stringParam(params, "alt_text"), bytes: null });
    return { status: 200, body: { ok: true, upload_url: `${baseUrl()}/upload/${id}`, file_id: id } };
  }

  function complete(params: WebApiParams, userId: string): WebApiReply {
    const list = typeof params.files === "string" ? safeJson(params.files) : params.files;
    if (!Array.isArray(list) || list.length === 0) return webApiError("invalid_arguments");
    const shared: StoredFile[] = [];
    for (const entry of list as { id?: unknown; title?: unknown }[]) {
      const file = typeof entry.id === "string" ? files.get(entry.id) : undefined;
      if (file === undefined || file.bytes === null) return webApiError("file_not_found");
      shared.push({
        id: file.id,
        name: file.filename,
        title: typeof entry.title === "string" ? entry.title : file.filename,
        mimetype: mimetypeOf(file.filename),
        size: file.bytes.length,
        ...(file.altText === undefined ? {} : { altText: file.altText }),
        url: `${baseUrl()}/files/${file.id}`,
      });
    }
    const channel = stringParam(params, "channel_id");
    if (channel !== undefined) {
      const threadTs = stringParam(params, "thread_ts");
      const comment = stringParam(params, "initial_comment");
      store.postMessage({
        channel,
        user: userId,
        text: comment ?? "",
        files: shared,
        ...(threadTs === undefined ? {} : { threadTs }),
      });
    }
    return { status: 200, body: { ok: true, files: shared.map((f) => ({ id: f.id, title: f.title })) } };
  }

  async function serve(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
    const upload = /^\/upload\/(F[0-9A-F]+)$/.exec(path)?.[1];
    if (upload !== undefined && request.method === "POST") {
      const file = files.get(upload);
      const bytes = await readBody(request, MAX_FILE_BYTES);
      if (file === undefined || bytes === null || bytes.length !== file.length) {
        response.writeHead(file === undefined ? 404 : 400, { "content-type": "text/plain" });
        response.end(file === undefined ? "no such upload" : "length does not match");
        return true;
      }
      file.bytes = bytes;
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`OK - ${bytes.length}`);
      return true;
    }
    const shared = /^\/files\/(F[0-9A-F]+)$/.exec(path)?.[1];
    if (shared !== undefined && request.method === "GET") {
      const file = files.get(shared);
      if (file?.bytes == null) {
        response.writeHead(404, { "content-type": "text/plain" });
        response.end("no such file");
        return true;
      }
      response.writeHead(200, { "content-type": mimetypeOf(file.filename), "cache-control": "no-store" });
      response.end(file.bytes);
      return true;
    }
    return false;
  }

  return {
    handle(method, params, userId) {
      if (method === "files.getUploadURLExternal") return getUploadUrl(params);
      if (method === "files.completeUploadExternal") return complete(params, userId);
      return null;
    },
    serve,
  };
}

function mimetypeOf(filename: string): string {
  const lower = filename.toLowerCase();
  if (lower.endsWith(".png")) return "image/png";
  if (lower.endsWith(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

async function readBody(request: IncomingMessage, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > max) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
