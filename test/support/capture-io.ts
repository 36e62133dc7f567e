import { PassThrough } from "node:stream";
import type { CliIo } from "../../src/cli/command.js";

/** A CliIo whose stdout/stderr are captured as strings, for running CLI commands in-process. */
export function captureIo(
  env: Record<string, string | undefined> = {},
): CliIo & { out(): string; err(): string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env,
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}
