import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isLog4j2 } from "./lab-jars.js";

/**
 * Logging for lab JVMs: everything to stderr (stdout carries the lab connector's JSON lines), INFO, with the lines
 * the observer reads. reload4j (log4j 1 syntax) up to 3.9, log4j2 properties syntax from 4.0.
 */
export async function writeLoggingConfig(
  dir: string,
  version: string,
  role: "broker" | "connect",
): Promise<string> {
  const quiet =
    role === "broker" ? ["kafka", "org.apache.kafka"] : ["org.reflections", "org.apache.kafka.clients"];
  if (isLog4j2(version)) {
    const file = join(dir, "log4j2.properties");
    const lines = [
      "status = warn",
      "appender.err.type = Console",
      "appender.err.name = ERR",
      "appender.err.target = SYSTEM_ERR",
      "appender.err.layout.type = PatternLayout",
      "appender.err.layout.pattern = [%d] %p %m (%c)%n",
      "rootLogger.level = INFO",
      "rootLogger.appenderRef.err.ref = ERR",
      ...quiet.flatMap((name, i) => [`logger.q${i}.name = ${name}`, `logger.q${i}.level = WARN`]),
    ];
    if (role === "broker")
      lines.push("logger.started.name = kafka.server.KafkaRaftServer", "logger.started.level = INFO");
    await writeFile(file, `${lines.join("\n")}\n`);
    return file;
  }
  const file = join(dir, "log4j.properties");
  const lines = [
    "log4j.rootLogger=INFO, err",
    "log4j.appender.err=org.apache.log4j.ConsoleAppender",
    "log4j.appender.err.Target=System.err",
    "log4j.appender.err.layout=org.apache.log4j.PatternLayout",
    "log4j.appender.err.layout.ConversionPattern=[%d] %p %m (%c)%n",
    ...quiet.map((name) => `log4j.logger.${name}=WARN`),
  ];
  if (role === "broker") lines.push("log4j.logger.kafka.server.KafkaRaftServer=INFO");
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

export function loggingArgs(version: string, configFile: string, logsDir: string): string[] {
  return [
    isLog4j2(version)
      ? `-Dlog4j2.configurationFile=${configFile}`
      : `-Dlog4j.configuration=file:${configFile}`,
    `-Dkafka.logs.dir=${logsDir}`,
  ];
}
