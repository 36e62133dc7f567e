import { accessSync, constants } from "node:fs";
import { AppError, ErrorCode } from "../core/errors.js";

/** The bot's environment, where executors find their secrets. */
export type Env = Readonly<Record<string, string | undefined>>;

function notSet(variable: string, what: string): string {
  return `${what}: environment variable ${variable} is not set`;
}

/** The one-line problem when the secret in `variable` is unset or empty (preflight), or null. */
export function missingSecret(env: Env, variable: string, what: string): string | null {
  const value = env[variable];
  return value === undefined || value === "" ? notSet(variable, what) : null;
}

/** The secret in `variable`; throws `config/invalid` with the same line as `missingSecret` when it is not set. */
export function requireSecret(env: Env, variable: string, what: string): string {
  const value = env[variable];
  if (value === undefined || value === "")
    throw new AppError(ErrorCode.ConfigInvalid, notSet(variable, what));
  return value;
}

/** Why `file` cannot be accessed with `mode` ("ENOENT", "EACCES"), or null when it can. */
export function fileAccessError(file: string, mode: number = constants.R_OK): string | null {
  try {
    accessSync(file, mode);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "unreadable";
  }
}

/** The one-line problem when `file` cannot be read (preflight), or null. */
export function unreadableFile(file: string, what: string): string | null {
  const reason = fileAccessError(file);
  return reason === null ? null : `${what}: cannot read ${file} (${reason})`;
}
