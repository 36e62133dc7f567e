import { createInterface } from "node:readline/promises";
import type { CliIo } from "./command.js";

/** Asks on a terminal whether to start a stage; unattended (no terminal), it is not started. */
export async function askStage(io: CliIo, question: string): Promise<boolean> {
  if (io.stdin.isTTY !== true) return false;
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    for (;;) {
      const answer = (await rl.question(`${question} [approve/abort] `, { signal: io.signal }))
        .trim()
        .toLowerCase();
      if (answer !== "" && "approve".startsWith(answer)) return true;
      if (answer !== "" && "abort".startsWith(answer)) return false;
    }
  } finally {
    rl.close();
  }
}
