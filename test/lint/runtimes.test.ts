import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** The supported Node lines are stated in four places; they must say the same thing. */
const read = (path: string) => readFileSync(path, "utf8");
const major = (version: string) => Number(version.split(".")[0]);

describe("supported runtimes", () => {
  const pkg = JSON.parse(read("package.json")) as {
    engines: { node: string };
    allowScripts?: Record<string, boolean>;
  };
  const ci = read(".ci/run");
  const ciVersion = (name: string) => {
    const found = new RegExp(`^${name}=(\\d+\\.\\d+\\.\\d+)`, "m").exec(ci);
    if (!found?.[1]) throw new Error(`.ci/run sets no ${name}`);
    return found[1];
  };

  it("package.json requires Node 22 or later (20 is past its end of life)", () => {
    expect(pkg.engines.node).toBe(">=22");
  });

  it("CI runs the tests on Node 22 and 24, and 24 is the Dockerfile's base", () => {
    expect(major(ciVersion("NODE22_VERSION"))).toBe(22);
    expect(major(ciVersion("NODE24_VERSION"))).toBe(24);
    const bases = [...read("Dockerfile").matchAll(/^FROM node:(\d+)/gm)].map((m) => Number(m[1]));
    expect(bases.length).toBeGreaterThan(0);
    expect(new Set(bases)).toEqual(new Set([24]));
  });

  it("esbuild's install script is decided, not left to npm's warning", () => {
    expect(pkg.allowScripts).toEqual({ esbuild: false });
  });

  it("the README names the supported lines and no end-of-life one as supported", () => {
    const readme = read("README.md");
    expect(readme).toContain("Node 22 or 24 LTS");
    expect(readme).not.toMatch(/Node 20, 22/);
  });
});
