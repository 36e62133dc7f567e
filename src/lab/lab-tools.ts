import { join } from "node:path";
import { AppError, ErrorCode } from "../core/errors.js";
import { runTool } from "./run-tool.js";

/**
 * The lab needs a Java 17+ runtime (JAVA_HOME or `java` on PATH) and Maven (`mvn`). Missing or too old: one line
 * that says what to install (AppError `usage/invalid`, exit 2 in the CLI).
 */
export async function checkLabTools(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ java: string; javac: string; javaVersion: number }> {
  const java = env.JAVA_HOME ? join(env.JAVA_HOME, "bin", "java") : "java";
  const probe = await runTool(java, ["-version"], { timeoutMs: 30_000, env: { PATH: env.PATH ?? "" } });
  if (probe.missing || probe.code !== 0)
    throw new AppError(
      ErrorCode.UsageInvalid,
      `the lab needs Java 17 or newer: ${java} was not found (install a JDK 17, e.g. Debian's openjdk-17-jdk-headless, or set JAVA_HOME)`,
    );
  const major = Number(/version "(\d+)/.exec(probe.output)?.[1] ?? "0");
  if (major < 17)
    throw new AppError(
      ErrorCode.UsageInvalid,
      `the lab needs Java 17 or newer; ${java} is Java ${major} (set JAVA_HOME to a JDK 17+)`,
    );
  const mvn = await runTool("mvn", ["-v"], {
    timeoutMs: 30_000,
    env: { PATH: env.PATH ?? "", ...(env.JAVA_HOME ? { JAVA_HOME: env.JAVA_HOME } : {}) },
  });
  if (mvn.missing || mvn.code !== 0)
    throw new AppError(
      ErrorCode.UsageInvalid,
      "the lab needs Maven to fetch Kafka's jars: mvn was not found (install Maven, e.g. Debian's maven package)",
    );
  const javac = env.JAVA_HOME ? join(env.JAVA_HOME, "bin", "javac") : "javac";
  const compiler = await runTool(javac, ["-version"], {
    timeoutMs: 30_000,
    env: { PATH: env.PATH ?? "" },
  });
  if (compiler.missing || compiler.code !== 0)
    throw new AppError(
      ErrorCode.UsageInvalid,
      "the lab needs a JDK (javac), not only a JRE: install a JDK 17+",
    );
  return { java, javac, javaVersion: major };
}
