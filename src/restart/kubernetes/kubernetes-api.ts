import { readFile } from "node:fs/promises";
import { Agent, type Dispatcher, request } from "undici";
import type { z } from "zod";
import { AppError, ErrorCode } from "../../core/errors.js";
import { readBoundedText, requestSignal, transportFailure } from "../http-support.js";
import { type Pod, PodSchema, type StatefulSet, StatefulSetSchema } from "./kubernetes-schemas.js";

export interface KubernetesApiOptions {
  readonly apiUrl: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly caFile?: string;
  readonly namespace: string;
  readonly statefulSet: string;
  readonly timeoutMs: number;
}

/** Who a call is for (named in errors) and the caller's abort signal. */
export interface CallContext {
  readonly worker: string;
  readonly signal?: AbortSignal | undefined;
}

/** The four Kubernetes REST calls the restarter makes, for one namespace and StatefulSet. */
export interface KubernetesApi {
  getStatefulSet(ctx: CallContext): Promise<StatefulSet>;
  /** JSON merge-patch (RFC 7386). */
  patchStatefulSet(patch: unknown, ctx: CallContext): Promise<StatefulSet>;
  /** The pod, or null when it does not exist (404). */
  getPod(name: string, ctx: CallContext): Promise<Pod | null>;
  /** Deletes the pod if its uid is still `uid`; "gone" when it no longer exists. */
  deletePod(name: string, uid: string, ctx: CallContext): Promise<"deleted" | "gone">;
  close(): Promise<void>;
}

interface Call {
  readonly method: "GET" | "PATCH" | "DELETE";
  readonly path: string;
  readonly label: string;
  readonly body?: unknown;
  readonly contentType?: string;
}

export function createKubernetesApi(options: KubernetesApiOptions): KubernetesApi {
  if ((options.token === undefined) === (options.tokenFile === undefined)) {
    throw new AppError(
      ErrorCode.ConfigInvalid,
      "Kubernetes executor: set exactly one of token and tokenFile.",
    );
  }
  const base = new URL(options.apiUrl);
  if (base.protocol !== "https:" && base.protocol !== "http:") {
    throw new AppError(ErrorCode.ConfigInvalid, "Kubernetes executor: apiUrl must be http(s).");
  }
  const basePath = base.pathname.replace(/\/+$/, "");
  const ns = encodeURIComponent(options.namespace);
  const stsPath = `/apis/apps/v1/namespaces/${ns}/statefulsets/${encodeURIComponent(options.statefulSet)}`;
  const podPath = (name: string): string => `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(name)}`;
  let agent: Promise<Dispatcher> | undefined;

  function dispatcher(): Promise<Dispatcher> | undefined {
    const { caFile } = options;
    if (caFile === undefined) return undefined;
    agent ??= readFile(caFile, "utf8").then((ca) => new Agent({ connect: { ca } }));
    return agent;
  }

  async function bearer(): Promise<string> {
    if (options.token !== undefined) return options.token;
    const file = options.tokenFile ?? "";
    try {
      return (await readFile(file, "utf8")).trim();
    } catch (err) {
      throw new AppError(ErrorCode.RestartFailed, `Cannot read the Kubernetes token file ${file}.`, {
        cause: err,
        retryable: false,
      });
    }
  }

  async function send(call: Call, ctx: CallContext): Promise<{ status: number; text: string }> {
    const token = await bearer();
    let ownDispatcher: Dispatcher | undefined;
    try {
      ownDispatcher = await dispatcher();
    } catch (err) {
      agent = undefined;
      throw new AppError(ErrorCode.RestartFailed, `Cannot read the Kubernetes CA file ${options.caFile}.`, {
        cause: err,
        retryable: false,
      });
    }
    const url = new URL(base.href);
    url.pathname = basePath + call.path;
    try {
      const res = await request(url, {
        method: call.method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(call.body === undefined ? {} : { "content-type": call.contentType ?? "application/json" }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        ...(ownDispatcher === undefined ? {} : { dispatcher: ownDispatcher }),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: requestSignal(options.timeoutMs, ctx.signal),
      });
      return { status: res.statusCode, text: await readBoundedText(res.body, 1024 * 1024) };
    } catch (err) {
      throw transportFailure(err, `Kubernetes API ${call.label}`, ctx.worker, ctx.signal);
    }
  }

  function statusError(call: Call, status: number, text: string, ctx: CallContext): AppError {
    let reason = "";
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && "message" in parsed) {
        reason = String((parsed as { message: unknown }).message).slice(0, 300);
      }
    } catch {
      reason = "";
    }
    const hint = status === 401 ? " (check the token)" : status === 403 ? " (check the RBAC role)" : "";
    const retryable = status === 409 || status === 429 || status >= 500;
    return new AppError(
      ErrorCode.RestartFailed,
      `Restart of ${ctx.worker}: Kubernetes API ${call.label} answered HTTP ${status}${hint}${reason ? `: ${reason}` : ""}.`,
      { retryable, details: { worker: ctx.worker, status, call: call.label } },
    );
  }

  function parse<T>(schema: z.ZodType<T>, call: Call, text: string, ctx: CallContext): T {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new AppError(ErrorCode.RestartFailed, `Kubernetes API ${call.label} returned invalid JSON.`, {
        cause: err,
        retryable: true,
        details: { worker: ctx.worker },
      });
    }
    const result = schema.safeParse(json);
    if (!result.success) {
      throw new AppError(
        ErrorCode.RestartFailed,
        `Kubernetes API ${call.label} returned an unexpected object.`,
        {
          cause: result.error,
          retryable: false,
          details: { worker: ctx.worker },
        },
      );
    }
    return result.data;
  }

  async function expect<T>(schema: z.ZodType<T>, call: Call, ctx: CallContext): Promise<T> {
    const { status, text } = await send(call, ctx);
    if (status < 200 || status > 299) throw statusError(call, status, text, ctx);
    return parse(schema, call, text, ctx);
  }

  const sts = `statefulset ${options.namespace}/${options.statefulSet}`;
  return {
    getStatefulSet: (ctx) =>
      expect(StatefulSetSchema, { method: "GET", path: stsPath, label: `GET ${sts}` }, ctx),
    patchStatefulSet: (patch, ctx) =>
      expect(
        StatefulSetSchema,
        {
          method: "PATCH",
          path: stsPath,
          label: `PATCH ${sts}`,
          body: patch,
          contentType: "application/merge-patch+json",
        },
        ctx,
      ),
    async getPod(name, ctx) {
      const call: Call = {
        method: "GET",
        path: podPath(name),
        label: `GET pod ${options.namespace}/${name}`,
      };
      const { status, text } = await send(call, ctx);
      if (status === 404) return null;
      if (status < 200 || status > 299) throw statusError(call, status, text, ctx);
      return parse(PodSchema, call, text, ctx);
    },
    async deletePod(name, uid, ctx) {
      const call: Call = {
        method: "DELETE",
        path: podPath(name),
        label: `DELETE pod ${options.namespace}/${name}`,
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid } },
      };
      const { status, text } = await send(call, ctx);
      if (status === 404) return "gone";
      if (status < 200 || status > 299) throw statusError(call, status, text, ctx);
      return "deleted";
    },
    async close() {
      const pending = agent;
      agent = undefined;
      if (pending) await (await pending.catch(() => undefined))?.close();
    },
  };
}
