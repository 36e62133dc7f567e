import { formatProblem } from "../../config/config-problem.js";
import { loadConfigFile } from "../../config/load-config.js";
import { isAppError } from "../../core/errors.js";
import { plural } from "../../core/plural.js";
import { type CliCommand, ExitCode } from "../command.js";

export const configCheckCommand: CliCommand = {
  name: "config check",
  summary: "validate a configuration file and print every problem",
  help: `Usage: connect-roll config check [--config FILE]

Validates the configuration file (default connect-roll.yml): YAML syntax, every field, unknown keys and the
cross-field rules. Prints every problem with its path and line; warnings do not fail the check.

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  --json          print the problems as JSON
  -h, --help      show this help

Exit codes: 0 valid, 1 invalid, 2 usage error.`,
  options: {
    config: { type: "string", default: "connect-roll.yml" },
    json: { type: "boolean", default: false },
  },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    const file = String(values.config);
    try {
      const parsed = await loadConfigFile(file, { env: io.env });
      const problems = parsed.kind === "valid" ? parsed.warnings : parsed.problems;
      if (values.json === true) {
        io.stdout.write(`${JSON.stringify({ file, valid: parsed.kind === "valid", problems })}\n`);
      } else {
        for (const p of problems) io.stdout.write(`${file}: ${formatProblem(p)}\n`);
        const errors = problems.filter((p) => p.severity === "error").length;
        const warnings = problems.length - errors;
        io.stdout.write(
          parsed.kind === "valid"
            ? `${file}: valid (${plural(Object.keys(parsed.config.clusters).length, "cluster")}, ${plural(warnings, "warning")})\n`
            : `${file}: invalid (${plural(errors, "error")}, ${plural(warnings, "warning")})\n`,
        );
      }
      return parsed.kind === "valid" ? ExitCode.Ok : ExitCode.Failed;
    } catch (e) {
      if (isAppError(e)) {
        io.stderr.write(`connect-roll: ${e.message}\n`);
        return ExitCode.Failed;
      }
      throw e;
    }
  },
};
