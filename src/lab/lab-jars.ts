import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppError, ErrorCode } from "../core/errors.js";
import { runTool } from "./run-tool.js";

/**
 * Kafka jars for the lab, per (role, version), copied by Maven from its default repository into a cache that is
 * reused across runs. One lib folder per role and version: never two Kafka versions on one classpath.
 */
export const SUPPORTED_KAFKA = /^(3\.[6-9]|4\.[0-4])\.\d+$/;
/** Connect workers older than 3.6 run on Java 17 next to a 3.9 broker (README, "Older Connect versions"). */
const OLD_CONNECT = /^(2\.[2-8]|3\.[0-5])\.\d+$/;
const EXPORTER_VERSION = "1.0.1";
const DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";
const SLF4J = "1.7.36";
const RELOAD4J = "1.2.25";
const LOG4J2 = "2.24.3";

export type LabRole = "broker" | "connect";

export function labCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.CONNECT_ROLL_LAB_CACHE ?? join(homedir(), ".cache", "connect-roll", "lab");
}

export function isLog4j2(version: string): boolean {
  return version.startsWith("4.");
}

export function checkKafkaVersion(version: string, role: LabRole = "broker"): void {
  if (!SUPPORTED_KAFKA.test(version) && !(role === "connect" && OLD_CONNECT.test(version)))
    throw new AppError(
      ErrorCode.UsageInvalid,
      role === "connect"
        ? `Kafka Connect ${version} is not supported by the lab (workers: 2.2.x – 4.4.x, e.g. 3.9.1 or 4.1.1)`
        : `Kafka ${version} is not supported by the lab as a broker (3.6.x – 4.4.x; older workers run next to a 3.9 broker)`,
    );
}

interface Dependency {
  readonly group: string;
  readonly artifact: string;
  readonly version: string;
}

function dependencies(role: LabRole, version: string): Dependency[] {
  const main: Dependency =
    role === "broker"
      ? { group: "org.apache.kafka", artifact: "kafka_2.13", version }
      : { group: "org.apache.kafka", artifact: "connect-runtime", version };
  const slf4j = { group: "org.slf4j", artifact: "slf4j-api", version: SLF4J };
  // Before 3.6 connect-runtime brings its own log4j binding (through kafka-tools and kafka-log4j-appender).
  if (role === "connect" && OLD_CONNECT.test(version)) return [main];
  if (isLog4j2(version))
    return [
      main,
      slf4j,
      { group: "org.apache.logging.log4j", artifact: "log4j-api", version: LOG4J2 },
      { group: "org.apache.logging.log4j", artifact: "log4j-core", version: LOG4J2 },
      { group: "org.apache.logging.log4j", artifact: "log4j-slf4j-impl", version: LOG4J2 },
    ];
  return [
    main,
    slf4j,
    { group: "ch.qos.reload4j", artifact: "reload4j", version: RELOAD4J },
    { group: "org.slf4j", artifact: "slf4j-reload4j", version: SLF4J },
  ];
}

function pom(name: string, deps: readonly Dependency[]): string {
  const body = deps
    .map(
      (d) =>
        `    <dependency><groupId>${d.group}</groupId><artifactId>${d.artifact}</artifactId><version>${d.version}</version></dependency>`,
    )
    .join("\n");
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>connect-roll.lab</groupId><artifactId>${name}</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
${body}
  </dependencies>
</project>
`;
}

/** Maven copies `deps` (runtime scope) into `dir/lib` once; a marker file says the copy is complete. */
async function copyDependencies(
  dir: string,
  name: string,
  deps: readonly Dependency[],
  timeoutMs: number,
): Promise<string> {
  const lib = join(dir, "lib");
  const marker = join(dir, ".complete");
  if (existsSync(marker)) return lib;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const pomFile = join(dir, "pom.xml");
  await writeFile(pomFile, pom(name, deps));
  const tmpLib = join(dir, "lib.partial");
  const result = await runTool(
    "mvn",
    [
      "-B",
      "-q",
      "-f",
      pomFile,
      `${DEPENDENCY_PLUGIN}:copy-dependencies`,
      "-DincludeScope=runtime",
      `-DoutputDirectory=${tmpLib}`,
    ],
    { timeoutMs },
  );
  if (result.code !== 0) {
    const missing =
      /Could not find artifact ([\w.-]+):([\w.-]+):jar:([\w.-]+)/.exec(result.output) ??
      /([\w.-]+):([\w.-]+):jar:([\w.-]+) was not found/.exec(result.output);
    if (missing?.[1] && missing[2] && missing[3]) {
      const served = await servedVersions(dir, missing[1], missing[2]);
      throw new AppError(
        ErrorCode.UsageInvalid,
        unresolvedMessage(missing[1], missing[2], missing[3], served),
      );
    }
    const reason = /Could not (?:resolve|find)[^\n]*?(?= in [a-z]+ \(|$)/m.exec(result.output)?.[0];
    throw new AppError(
      ErrorCode.UsageInvalid,
      `Maven could not fetch ${name}${reason ? `: ${reason.trim()}` : ` (exit ${result.code})`}; the lab supports Kafka 3.6.x – 4.4.x`,
    );
  }
  await rename(tmpLib, lib);
  await writeFile(marker, new Date().toISOString());
  return lib;
}

/**
 * The versions of an artifact that Maven's repository lists, read from the metadata Maven keeps in the local repository
 * (the default `~/.m2/repository`) once it has resolved a version range of that artifact (a range no version
 * satisfies: nothing is downloaded but the metadata). Empty when Maven or the metadata gives nothing.
 */
async function servedVersions(dir: string, group: string, artifact: string): Promise<string[]> {
  const pomFile = join(dir, "versions-pom.xml");
  await writeFile(pomFile, pom("versions", [{ group, artifact, version: "[9999,)" }]));
  await runTool("mvn", ["-B", "-q", "-f", pomFile, `${DEPENDENCY_PLUGIN}:resolve`], { timeoutMs: 120_000 });
  const folder = join(homedir(), ".m2", "repository", ...group.split("."), artifact);
  const files = existsSync(folder)
    ? (await readdir(folder)).filter((f) => /^maven-metadata.*\.xml$/.test(f))
    : [];
  const versions = new Set<string>();
  for (const f of files)
    for (const m of (await readFile(join(folder, f), "utf8")).matchAll(/<version>([^<]+)<\/version>/g))
      if (m[1]) versions.add(m[1].trim());
  return [...versions];
}

const numeric = (v: string) => v.split(".").map((n) => Number.parseInt(n, 10) || 0);
function byVersion(a: string, b: string): number {
  const x = numeric(a);
  const y = numeric(b);
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * One line for a version Maven cannot resolve: the versions of its line (major.minor) that the repository lists, and
 * the newest of every line the lab supports.
 */
export function unresolvedMessage(
  group: string,
  artifact: string,
  version: string,
  served: readonly string[],
): string {
  const line = version.split(".").slice(0, 2).join(".");
  const supported = served
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v) && (SUPPORTED_KAFKA.test(v) || OLD_CONNECT.test(v)))
    .sort(byVersion);
  const sameLine = supported.filter((v) => v.startsWith(`${line}.`));
  const newest = new Map<string, string>();
  for (const v of supported) newest.set(v.split(".").slice(0, 2).join("."), v);
  const head = `Maven cannot resolve Kafka ${version} (${group}:${artifact}:${version})`;
  if (supported.length === 0) return `${head}; check the version (the lab supports 2.2.x – 4.4.x)`;
  const lines = [...newest.values()].filter((v) => SUPPORTED_KAFKA.test(v) || v.startsWith("2.8."));
  return `${head}; it resolves ${sameLine.length > 0 ? `${line}: ${sameLine.join(", ")}` : `no ${line}.x`} (newest of each line: ${lines.join(", ")})`;
}

export interface KafkaJars {
  readonly version: string;
  readonly lib: string;
}

export async function fetchKafkaJars(
  role: LabRole,
  version: string,
  options: { cacheDir: string; timeoutMs?: number },
): Promise<KafkaJars> {
  checkKafkaVersion(version, role);
  const dir = join(options.cacheDir, `${role}-${version}`);
  const lib = await copyDependencies(
    dir,
    `${role}-${version}`,
    dependencies(role, version),
    options.timeoutMs ?? 900_000,
  );
  return { version, lib };
}

export async function fetchExporterAgent(options: { cacheDir: string; timeoutMs?: number }): Promise<string> {
  const dir = join(options.cacheDir, `jmx-exporter-${EXPORTER_VERSION}`);
  const lib = await copyDependencies(
    dir,
    `jmx-exporter-${EXPORTER_VERSION}`,
    [{ group: "io.prometheus.jmx", artifact: "jmx_prometheus_javaagent", version: EXPORTER_VERSION }],
    options.timeoutMs ?? 300_000,
  );
  const jar = (await readdir(lib)).find((f) => f.startsWith("jmx_prometheus_javaagent"));
  if (jar === undefined) throw new AppError(ErrorCode.Internal, "the JMX exporter agent jar is missing");
  return join(lib, jar);
}

/** Connect 3.3+ runs exactly-once source tasks (KIP-618): `exactly.once.source.support`, `exactly.once.support`. */
export function supportsExactlyOnceSource(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > 3 || (major === 3 && minor >= 3);
}

/** Where the lab plugin's Java sources live (next to this file, in src/ and in dist/). */
function pluginSourceDir(): string {
  return fileURLToPath(new URL("./plugin", import.meta.url));
}

/** Compiles the lab's source and sink connectors against a Connect version's jars; the classes folder goes on the classpath. */
export async function buildLabPlugin(
  connect: KafkaJars,
  options: { cacheDir: string; javac?: string },
): Promise<string> {
  const src = join(pluginSourceDir(), "connectroll", "lab");
  // The exactly-once source connector needs Connect 3.3+ (KIP-618's interfaces); older workers get the others.
  const eos = supportsExactlyOnceSource(connect.version);
  const sources = (await readdir(src))
    .filter((f) => f.endsWith(".java") && (eos || !f.includes("ExactlyOnce")))
    .map((f) => join(src, f));
  // The sources' hash is part of the folder: a newer connect-roll never runs a stale build of the plugin.
  const hash = createHash("sha256");
  for (const file of sources.sort()) hash.update(await readFile(file));
  const dir = join(options.cacheDir, `plugin-${connect.version}-${hash.digest("hex").slice(0, 12)}`);
  const classes = join(dir, "classes");
  const marker = join(dir, ".complete");
  if (existsSync(marker)) return classes;
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(classes, "META-INF", "services"), { recursive: true });
  const result = await runTool(
    options.javac ?? "javac",
    ["--release", "17", "-nowarn", "-cp", `${connect.lib}/*`, "-d", classes, ...sources],
    { timeoutMs: 120_000 },
  );
  if (result.code !== 0)
    throw new AppError(
      ErrorCode.Internal,
      `javac failed on the lab plugin: ${result.output.trim().slice(0, 500)}`,
    );
  await writeFile(
    join(classes, "META-INF", "services", "org.apache.kafka.connect.source.SourceConnector"),
    eos
      ? "connectroll.lab.LabSourceConnector\nconnectroll.lab.LabExactlyOnceSourceConnector\n"
      : "connectroll.lab.LabSourceConnector\n",
  );
  await writeFile(
    join(classes, "META-INF", "services", "org.apache.kafka.connect.sink.SinkConnector"),
    "connectroll.lab.LabSinkConnector\n",
  );
  await writeFile(marker, new Date().toISOString());
  return classes;
}
