import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { labCommand, labFetchCommand } from "../../src/cli/commands/lab.js";
import { runCli } from "../../src/cli/main.js";
import { checkLabTools } from "../../src/lab/lab-tools.js";
import { captureIo } from "../support/capture-io.js";

const program = { version: "0.0.0", commands: [labCommand, labFetchCommand] };

/** A folder with a fake `java` that reports the given version (and optionally `javac`, `mvn`). */
async function fakeTools(javaVersion: string, withMvn: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "connect-roll-tools-"));
  const script = (out: string) => `#!/bin/sh\necho '${out}' >&2\nexit 0\n`;
  await writeFile(join(dir, "java"), script(`openjdk version "${javaVersion}" 2024-01-16`));
  await writeFile(join(dir, "javac"), script(`javac ${javaVersion}`));
  if (withMvn) await writeFile(join(dir, "mvn"), script("Apache Maven 3.8.7"));
  for (const f of ["java", "javac", ...(withMvn ? ["mvn"] : [])]) await chmod(join(dir, f), 0o755);
  return dir;
}

describe("the lab's prerequisites (no Java needed)", () => {
  it("no java on PATH: one line saying to install a JDK 17, exit 2", async () => {
    const io = captureIo({ PATH: "/nonexistent" });
    expect(await runCli(program, ["lab", "--workers", "2"], io)).toBe(2);
    const lines = io
      .err()
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith("lab: "));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("Java 17");
  });

  it("Java 11: says it is too old", async () => {
    await expect(checkLabTools({ PATH: await fakeTools("11.0.2", true) })).rejects.toThrow(/Java 11/);
  });

  it("no mvn: says to install Maven", async () => {
    await expect(checkLabTools({ PATH: await fakeTools("17.0.15", false) })).rejects.toThrow(/Maven/);
  });

  it("Java 17 and Maven: accepted", async () => {
    await expect(checkLabTools({ PATH: await fakeTools("17.0.15", true) })).resolves.toMatchObject({
      javaVersion: 17,
    });
  });

  it("an unsupported Kafka version: the supported range, exit 2, before anything is fetched", async () => {
    const io = captureIo({ PATH: "/nonexistent" });
    expect(await runCli(program, ["lab", "--kafka", "1.1.1"], io)).toBe(2);
    expect(io.err()).toContain("2.2.x – 4.4.x");
    const broker = captureIo({ PATH: "/nonexistent" });
    expect(await runCli(program, ["lab", "--broker-version", "2.8.2"], broker)).toBe(2);
    expect(broker.err()).toContain("as a broker (3.6.x – 4.4.x");
    const fetch = captureIo({ PATH: "/nonexistent" });
    expect(await runCli(program, ["lab", "fetch"], fetch)).toBe(2);
    expect(fetch.err()).toContain("--kafka");
  });

  it("bad flags are one-line usage errors", async () => {
    for (const argv of [
      ["lab", "--workers", "0"],
      ["lab", "--worker-version", "w1=3.9.1"],
      ["lab", "--connect-protocol", "worker-1=cooperative"],
    ]) {
      const io = captureIo({ PATH: "/nonexistent" });
      expect(await runCli(program, argv, io)).toBe(2);
      expect(io.err().trim().split("\n")).toHaveLength(1);
    }
  });
});
