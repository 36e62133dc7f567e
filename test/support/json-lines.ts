/** The JSON lines of a command's output (`--json`), parsed; other lines (a warning, a blank) are left out. */
export function jsonLines<T>(text: string): T[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as T);
}
