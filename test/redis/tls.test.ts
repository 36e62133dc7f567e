import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode, isAppError } from "../../src/core/errors.js";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import type { RedisConnectionConfig } from "../../src/jobs/redis/redis-connection.js";
import { type RedisServerProcess, startRedisServer } from "./redis-server-process.js";

const HAVE_OPENSSL = existsSync("/usr/bin/openssl");
const openssl = (args: string[], cwd: string) => promisify(execFile)("/usr/bin/openssl", args, { cwd });
const logger = pino({ level: "silent" });
let dir = "";
let redis: RedisServerProcess;

/** A CA, a server certificate for the name redis.test only (not 127.0.0.1), and a client certificate. */
async function makeCertificates(at: string): Promise<void> {
  await openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "1",
      "-subj",
      "/CN=connect-roll test CA",
    ],
    at,
  );
  for (const [name, cn] of [
    ["server", "redis.test"],
    ["client", "connect-roll"],
  ] as const) {
    await openssl(
      [
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.csr`,
        "-subj",
        `/CN=${cn}`,
      ],
      at,
    );
    await writeFile(
      join(at, `${name}.ext`),
      name === "server" ? "subjectAltName=DNS:redis.test\n" : "extendedKeyUsage=clientAuth\n",
    );
    await openssl(
      [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${name}.crt`,
        "-days",
        "1",
        "-extfile",
        `${name}.ext`,
      ],
      at,
    );
  }
}

beforeAll(async () => {
  if (!HAVE_OPENSSL) return;
  dir = await mkdtemp(join(tmpdir(), "connect-roll-tls-"));
  await makeCertificates(dir);
  const [ca, cert, key] = await Promise.all(
    ["ca.crt", "client.crt", "client.key"].map((f) => readFile(join(dir, f))),
  );
  redis = await startRedisServer({
    probeTls: { ca, cert, key, servername: "redis.test" },
    args: [
      "--tls-cert-file",
      join(dir, "server.crt"),
      "--tls-key-file",
      join(dir, "server.key"),
      "--tls-ca-cert-file",
      join(dir, "ca.crt"),
      "--tls-auth-clients",
      "yes",
    ],
  });
}, 30_000);
afterAll(async () => {
  await redis?.stop();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

async function attempt(config: RedisConnectionConfig): Promise<unknown> {
  const client = createRedisClient(config, logger);
  try {
    await connectRedis(client, config.url, new AbortController().signal, 5_000);
    await client.ping();
    return "connected";
  } catch (error) {
    return error;
  } finally {
    client.disconnect();
  }
}

describe.skipIf(!HAVE_OPENSSL)("Redis over TLS (redis.tls)", () => {
  const url = () => `rediss://127.0.0.1:${redis.port}`;
  const files = () => ({
    caFile: join(dir, "ca.crt"),
    certFile: join(dir, "client.crt"),
    keyFile: join(dir, "client.key"),
    serverName: "redis.test",
  });

  it("connects with the CA, a client certificate (mutual TLS) and the server's name", async () => {
    expect(await attempt({ url: url(), tls: files() })).toBe("connected");
  });

  it.each([
    ["without the CA: the certificate is not trusted", { caFile: undefined }, /certificate/],
    [
      "without the server name: the certificate is for another name",
      { serverName: undefined },
      /redis\.test|altnames/,
    ],
  ])("%s (the real cause in the error)", async (_name, change, cause) => {
    const error = await attempt({ url: url(), tls: { ...files(), ...change } });
    expect(isAppError(error, ErrorCode.StoreUnavailable)).toBe(true);
    expect((error as Error).message).toMatch(cause);
    expect((error as Error).message).toContain(`cannot reach Redis at rediss://127.0.0.1:${redis.port}`);
  });

  it("without a client certificate the server refuses the handshake: an error, never a hang", async () => {
    const error = await attempt({ url: url(), tls: { ...files(), certFile: undefined, keyFile: undefined } });
    expect(isAppError(error, ErrorCode.StoreUnavailable)).toBe(true);
    expect((error as Error).message).toContain("client certificate");
  });

  it("an unreadable CA file is a configuration error naming the field", () => {
    expect(() =>
      createRedisClient({ url: url(), tls: { caFile: join(dir, "missing.crt") } }, logger),
    ).toThrow(/redis\.tls\.caFile: cannot read .*missing\.crt/);
  });
});
