import { StringDecoder } from "node:string_decoder";

export interface TailBuffer {
  /** Feeds a chunk of output. */
  push(chunk: Buffer | string): void;
  /** The last lines (at most `maxLines`, each at most `maxLineChars`), including an unterminated last line. */
  lines(): string[];
  /** How many lines `lines()` leaves out at the front. */
  readonly droppedLines: number;
}

/**
 * Keeps only the tail of a stream of output: memory is bounded by maxLines × maxLineChars whatever the
 * process prints (an endless line without newline is cut to its last maxLineChars characters).
 */
export function createTailBuffer(maxLines = 20, maxLineChars = 1000): TailBuffer {
  const decoder = new StringDecoder("utf8");
  const kept: string[] = [];
  let partial = "";
  let dropped = 0;

  const clip = (line: string): string =>
    line.length > maxLineChars ? `…${line.slice(line.length - maxLineChars + 1)}` : line;

  function addLine(line: string): void {
    kept.push(clip(line.endsWith("\r") ? line.slice(0, -1) : line));
    if (kept.length > maxLines) {
      kept.shift();
      dropped += 1;
    }
  }

  return {
    push(chunk) {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      const parts = text.split("\n");
      const last = parts.pop() ?? "";
      for (const [i, part] of parts.entries()) addLine(i === 0 ? partial + part : part);
      if (parts.length > 0) partial = "";
      partial = clip(partial + last);
    },
    lines() {
      const all = partial.length > 0 ? [...kept, partial] : [...kept];
      return all.slice(-maxLines);
    },
    get droppedLines() {
      return dropped + Math.max(0, kept.length + (partial.length > 0 ? 1 : 0) - maxLines);
    },
  };
}
