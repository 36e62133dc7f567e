/**
 * `REDIS_URL` / `redis.url`: one Redis, a Sentinel-managed master, or a Redis Cluster.
 * - `redis://[user:pass@]host[:port][/db]` (and `rediss://` for TLS): one server
 * - `redis+sentinel://[user:pass@]h:p[,h:p…]/MASTER[/db]`: the master named MASTER, found through the sentinels
 *   (default port 26379); the credentials are the master's (and its replicas'), not the sentinels'
 * - `redis+cluster://[user:pass@]h:p[,h:p…]`: a Redis Cluster, from any of its nodes (no db: Cluster has only 0)
 * `rediss+sentinel://` and `rediss+cluster://` use TLS to every node (sentinels included).
 */
export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
}

export type RedisTarget =
  | {
      readonly kind: "standalone";
      readonly url: string;
      readonly tls: boolean;
    }
  | {
      readonly kind: "sentinel";
      readonly sentinels: readonly RedisEndpoint[];
      readonly masterName: string;
      readonly db: number;
      readonly username: string | null;
      readonly password: string | null;
      readonly tls: boolean;
    }
  | {
      readonly kind: "cluster";
      readonly nodes: readonly RedisEndpoint[];
      readonly username: string | null;
      readonly password: string | null;
      readonly tls: boolean;
    };

export type ParsedRedisUrl =
  | { readonly ok: true; readonly target: RedisTarget }
  | { readonly ok: false; readonly error: string };

const SHAPE = /^(rediss?)(?:\+(sentinel|cluster))?:\/\/(?:([^@/]*)@)?([^/?#@]+)(\/[^?#]*)?$/;

function endpoints(hosts: string, defaultPort: number): RedisEndpoint[] | string {
  const out: RedisEndpoint[] = [];
  for (const part of hosts.split(",")) {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(part.trim());
    if (!m?.[1]) return `"${part}" is not host[:port]`;
    const port = m[2] === undefined ? defaultPort : Number(m[2]);
    if (port < 1 || port > 65535) return `port ${port} out of range`;
    out.push({ host: m[1].replace(/^\[|\]$/g, ""), port });
  }
  return out;
}

function credentials(userinfo: string | undefined): { username: string | null; password: string | null } {
  if (userinfo === undefined || userinfo === "") return { username: null, password: null };
  const i = userinfo.indexOf(":");
  const user = decodeURIComponent(i < 0 ? userinfo : userinfo.slice(0, i));
  const pass = i < 0 ? null : decodeURIComponent(userinfo.slice(i + 1));
  // `redis://:secret@h` (password only) is the classic AUTH form.
  return { username: user === "" ? null : user, password: pass };
}

/** Parses a Redis URL; the error says what is wrong, never echoing a password. */
export function parseRedisUrl(text: string): ParsedRedisUrl {
  const m = SHAPE.exec(text.trim());
  if (!m)
    return {
      ok: false,
      error:
        "must be redis://, rediss://, redis+sentinel://[user:pass@]host:port[,host:port…]/MASTER[/db] or redis+cluster://[user:pass@]host:port[,host:port…] (rediss+… for TLS)",
    };
  const [, scheme = "redis", mode, userinfo, hosts = "", path = ""] = m;
  const tls = scheme === "rediss";
  if (mode === undefined) return { ok: true, target: { kind: "standalone", url: text.trim(), tls } };
  const nodes = endpoints(hosts, mode === "sentinel" ? 26379 : 6379);
  if (typeof nodes === "string") return { ok: false, error: nodes };
  let creds: { username: string | null; password: string | null };
  try {
    creds = credentials(userinfo);
  } catch {
    return { ok: false, error: "the user or password is not valid percent-encoding" };
  }
  const segments = path.split("/").filter((s) => s !== "");
  if (mode === "cluster") {
    if (segments.length > 0)
      return { ok: false, error: "a Redis Cluster URL takes no path (Cluster has only db 0)" };
    return { ok: true, target: { kind: "cluster", nodes, ...creds, tls } };
  }
  const [masterName, db = "0", ...rest] = segments;
  if (masterName === undefined)
    return { ok: false, error: "a Sentinel URL needs the master's name: …/MASTER[/db]" };
  if (rest.length > 0 || !/^\d{1,2}$/.test(db))
    return { ok: false, error: "the db after the master's name must be a number" };
  return {
    ok: true,
    target: {
      kind: "sentinel",
      sentinels: nodes,
      masterName: decodeURIComponent(masterName),
      db: Number(db),
      ...creds,
      tls,
    },
  };
}
