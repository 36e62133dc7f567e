import { parseArgs } from "node:util";
import { type CliCommand, type CliIo, ExitCode } from "./command.js";
import { oneLine } from "./one-line.js";

export interface CliProgram {
  readonly version: string;
  readonly commands: readonly CliCommand[];
}

function overview(program: CliProgram): string {
  const width = Math.max(...program.commands.map((c) => c.name.length));
  const lines = program.commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `connect-roll ${program.version} — rolling restarts and upgrades of Kafka Connect clusters with the least
rebalancing disruption (one worker at a time, leader last, a Connect-aware settle gate, approvals in Slack).

Usage: connect-roll <command> [options]

Commands:
${lines.join("\n")}

Run 'connect-roll <command> --help' for a command's options.
Options: -h, --help  show this help; -v, --version  print the version.`;
}

/** Finds the longest command name that prefixes argv ("config check" before "config"). */
function findCommand(
  program: CliProgram,
  argv: readonly string[],
): { command: CliCommand; rest: string[] } | null {
  const sorted = [...program.commands].sort((a, b) => b.name.split(" ").length - a.name.split(" ").length);
  for (const command of sorted) {
    const words = command.name.split(" ");
    if (words.every((w, i) => argv[i] === w)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

/** Runs the CLI: returns the exit code. Usage errors are one line on stderr and exit 2. */
export async function runCli(program: CliProgram, argv: readonly string[], io: CliIo): Promise<number> {
  const first = argv[0];
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout.write(`${overview(program)}\n`);
    return first === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  if (first === "-v" || first === "--version") {
    io.stdout.write(`${program.version}\n`);
    return ExitCode.Ok;
  }
  const found = findCommand(program, argv);
  const group = program.commands.filter((c) => c.name.startsWith(`${first} `));
  if (!found && group.length > 0 && (argv.length === 1 || argv[1] === "-h" || argv[1] === "--help")) {
    // "config --help": the group's subcommands.
    const width = Math.max(...group.map((c) => c.name.length));
    io.stdout.write(
      `Usage: connect-roll ${first} <subcommand> [options]\n\nSubcommands:\n${group.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}\n\nRun 'connect-roll ${group[0]?.name} --help' for its options.\n`,
    );
    return argv.length === 1 ? ExitCode.Usage : ExitCode.Ok;
  }
  if (!found) {
    const known = program.commands.map((c) => c.name).join(", ");
    io.stderr.write(
      `connect-roll: unknown command '${argv.slice(0, 2).join(" ")}' (commands: ${known}); see 'connect-roll --help'\n`,
    );
    return ExitCode.Usage;
  }
  const { command, rest } = found;
  if (rest.includes("-h") || rest.includes("--help")) {
    io.stdout.write(`${command.help}\n`);
    return ExitCode.Ok;
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  } catch (e) {
    const message = ((e as Error).message.split(/\n|\. To specify/)[0] ?? "invalid arguments").replace(
      /\.$/,
      "",
    );
    io.stderr.write(`connect-roll ${command.name}: ${message}; see 'connect-roll ${command.name} --help'\n`);
    return ExitCode.Usage;
  }
  const { min, max, names } = command.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const expected = names.length > 0 ? names.join(" ") : "no arguments";
    io.stderr.write(
      `connect-roll ${command.name}: expected ${expected}, got ${parsed.positionals.length === 0 ? "none" : `'${parsed.positionals.join(" ")}'`}; see 'connect-roll ${command.name} --help'\n`,
    );
    return ExitCode.Usage;
  }
  try {
    return await command.run(
      parsed.values as Record<string, string | boolean | undefined>,
      parsed.positionals,
      io,
    );
  } catch (e) {
    // Whatever a command did not expect is still one line; the stack only with LOG_LEVEL=debug.
    const message = e instanceof Error ? e.message : String(e);
    const aborted = io.signal.aborted ? " (interrupted)" : "";
    io.stderr.write(`connect-roll ${command.name}: ${oneLine(message)}${aborted}\n`);
    if (io.env.LOG_LEVEL === "debug" || io.env.LOG_LEVEL === "trace")
      io.stderr.write(`${e instanceof Error ? e.stack : ""}\n`);
    return ExitCode.Failed;
  }
}
