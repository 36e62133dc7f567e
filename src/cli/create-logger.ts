import pino, { type Logger } from "pino";

/** Paths redacted in every log line: tokens, secrets, passwords and auth headers, wherever they appear. */
const REDACT_PATHS = [
  "token",
  "*.token",
  "*.*.token",
  "secret",
  "*.secret",
  "*.*.secret",
  "password",
  "*.password",
  "*.*.password",
  "authorization",
  "*.authorization",
  "*.headers.authorization",
  "*.headers.Authorization",
  "botToken",
  "*.botToken",
  "appToken",
  "*.appToken",
  "signingSecret",
  "*.signingSecret",
  "env.SLACK_BOT_TOKEN",
  "env.SLACK_SIGNING_SECRET",
  "env.SLACK_APP_TOKEN",
];

export interface LoggerOptions {
  readonly level: string;
  /** Human-readable output (a terminal); JSON otherwise. */
  readonly pretty: boolean;
  /** Where to write; default stderr (stdout carries machine-readable output). */
  readonly destination?: NodeJS.WritableStream;
}

/** The one root logger, made in the composition root and passed down. */
export function createRootLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: { app: "connect-roll" },
  };
  if (options.pretty) {
    return pino({
      ...base,
      transport: {
        target: "pino-pretty",
        options: { destination: 2, colorize: true, ignore: "pid,hostname,app" },
      },
    });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}
