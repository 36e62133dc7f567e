/** A message as one line for stderr: its lines joined with "; " (zod's and YAML's messages span several). */
export function oneLine(message: string): string {
  return message
    .split("\n")
    .map((l) => l.trim().replace(/^✖\s*/, "").replace(/^→\s*/, "at "))
    .filter((l) => l !== "")
    .join("; ");
}
