/** Credentials in URLs and headers: what may be shown (never the secret) and what is sent. */

export interface HttpAuth {
  readonly username: string;
  readonly password: string;
}

/** The URL as it may appear in logs and errors: no user info. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return "(invalid URL)";
  }
}

/** `user:password@` of a URL, if any. */
export function authFromUrl(u: URL): HttpAuth | null {
  if (!u.username && !u.password) return null;
  return { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
}

export function basicAuthHeader(auth: HttpAuth): string {
  return `Basic ${Buffer.from(`${auth.username}:${auth.password}`, "utf8").toString("base64")}`;
}
