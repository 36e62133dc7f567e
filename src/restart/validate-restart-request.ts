import { AppError, ErrorCode } from "../core/errors.js";
import type { RestartRequest } from "./worker-restarter.js";

/** The target version: "3.7", "3.7.1", "3.7.1-rc1", "3.7.0.ccs". Nothing else reaches an executor. */
const RESTART_VERSION_PATTERN = /^[0-9]+\.[0-9]+(\.[0-9]+)?([-.][0-9A-Za-z]{1,32})?$/;

// OCI / distribution reference grammar: [domain[:port]/]path-component(/path-component)*[:tag][@sha256:hex]
const DOMAIN_COMPONENT = "(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])";
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]{1,5})?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const TAG = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
const DIGEST = "sha256:[a-f0-9]{64}";
const IMAGE_RE = new RegExp(
  `^(?:(?<domain>${DOMAIN})/)?(?<path>${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(?<tag>${TAG}))?(?:@(?<digest>${DIGEST}))?$`,
);

// RFC 1123 subdomain (case-insensitive for names and hosts; Kubernetes pod names must be lowercase).
const DNS_NAME_RE =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const POD_NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV6_LITERAL_RE = /^\[[0-9A-Fa-f:.]{2,45}\]$/;
// Printable ASCII without spaces: safe as a header value (Idempotency-Key), a JSON string and an env value.
const STEP_ID_RE = /^[\x21-\x7e]{1,200}$/;

/** True for `registry/repo/name:tag`, `name:tag`, `name@sha256:…`; a tag or a digest is required. */
export function isValidImageReference(image: string): boolean {
  if (image.length > 512) return false;
  const m = IMAGE_RE.exec(image);
  if (!m?.groups) return false;
  if (m.groups.tag === undefined && m.groups.digest === undefined) return false;
  return (m.groups.path ?? "").length <= 255;
}

/** True for an RFC 1123 DNS name (labels of letters, digits and inner hyphens, at most 253 characters). */
function isDnsSafeName(value: string): boolean {
  return value.length <= 253 && DNS_NAME_RE.test(value);
}

/** True for a Kubernetes object name (lowercase RFC 1123 subdomain). */
export function isKubernetesName(value: string): boolean {
  return value.length <= 253 && POD_NAME_RE.test(value);
}

function refuse(message: string, field: string): never {
  throw new AppError(ErrorCode.RestartRefused, message, { details: { field } });
}

function isDnsSafeHost(host: string): boolean {
  return isDnsSafeName(host) || IPV6_LITERAL_RE.test(host);
}

/** Shows a rejected value safely: quoted, control characters escaped, bounded. */
function quoteForMessage(value: unknown): string {
  const text = JSON.stringify(typeof value === "string" ? value : String(value)) ?? "";
  return text.length > 80 ? `${text.slice(0, 77)}…"` : text;
}

/**
 * Checks a restart request before any executor touches it. Every adapter calls this first; anything that
 * could reach a command line, an HTTP path or a Kubernetes object name is checked here.
 * Throws AppError `restart/refused` (with `details.field`) and returns nothing otherwise.
 */
export function validateRestartRequest(request: RestartRequest): void {
  const { worker } = request;
  if (request.kind !== "upgrade" && request.kind !== "restart") {
    refuse(`Restart kind ${quoteForMessage(request.kind)} is neither "upgrade" nor "restart".`, "kind");
  }
  if (typeof request.version !== "string" || !RESTART_VERSION_PATTERN.test(request.version)) {
    refuse(
      `Version ${quoteForMessage(request.version)} is not a plain version like 3.7 or 3.7.1 (digits, dots and an optional short suffix such as -rc1); nothing was run.`,
      "version",
    );
  }
  if (
    request.image !== null &&
    (typeof request.image !== "string" || !isValidImageReference(request.image))
  ) {
    refuse(
      `Image ${quoteForMessage(request.image)} is not a valid image reference (expected registry/repo/name:tag or name@sha256:<64 hex>, no spaces or shell characters); nothing was run.`,
      "image",
    );
  }
  if (typeof worker?.name !== "string" || !isDnsSafeName(worker.name)) {
    refuse(
      `Worker name ${quoteForMessage(worker?.name)} is not a DNS-safe name; nothing was run.`,
      "worker.name",
    );
  }
  if (typeof worker.host !== "string" || !isDnsSafeHost(worker.host)) {
    refuse(
      `Worker host ${quoteForMessage(worker.host)} is not a DNS name or IP address; nothing was run.`,
      "worker.host",
    );
  }
  const idMatch = typeof worker.workerId === "string" ? /^(.+):([0-9]{1,5})$/.exec(worker.workerId) : null;
  if (!idMatch || !isDnsSafeHost(idMatch[1] ?? "")) {
    refuse(
      `Worker id ${quoteForMessage(worker.workerId)} is not host:port; nothing was run.`,
      "worker.workerId",
    );
  }
  if (!isHttpUrl(worker.url)) {
    refuse(`Worker URL ${quoteForMessage(worker.url)} is not an http(s) URL; nothing was run.`, "worker.url");
  }
  if (worker.pod !== null && (typeof worker.pod !== "string" || !isKubernetesName(worker.pod))) {
    refuse(
      `Pod name ${quoteForMessage(worker.pod)} is not a valid Kubernetes name; nothing was run.`,
      "worker.pod",
    );
  }
  if (typeof request.stepId !== "string" || !STEP_ID_RE.test(request.stepId)) {
    refuse(
      `Step id ${quoteForMessage(request.stepId)} must be 1-200 printable characters without spaces.`,
      "stepId",
    );
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string" || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
