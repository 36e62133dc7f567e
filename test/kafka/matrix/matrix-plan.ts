/**
 * What the version matrix runs (`npm run test:kafka:matrix`): the newest patch of every Kafka line the lab supports,
 * an old eager-capable 2.8 worker, and the upgrade paths users take. Pure: parsing and the lists.
 */
export const DEFAULT_VERSIONS: readonly string[] = [
  "2.8.2",
  "3.6.2",
  "3.7.2",
  "3.8.1",
  "3.9.2",
  "4.0.2",
  "4.1.2",
  "4.2.2",
  "4.3.2",
  "4.4.0",
];

/** A rollout from one version to another, with the broker it runs on. */
export interface UpgradePath {
  readonly from: string;
  readonly to: string;
  readonly broker: string;
  /** The old workers run connect.protocol=eager (the upgrade drops the override). */
  readonly eager: boolean;
}

/** The broker of a path is the newer side's (brokers are upgraded first; a downgrade leaves the broker alone). */
export const UPGRADE_PATHS: readonly UpgradePath[] = [
  { from: "3.6.2", to: "3.9.2", broker: "3.9.2", eager: false },
  { from: "3.9.2", to: "4.0.2", broker: "4.0.2", eager: false },
  { from: "4.0.2", to: "4.4.0", broker: "4.4.0", eager: false },
  { from: "4.1.2", to: "4.4.0", broker: "4.4.0", eager: false },
  { from: "2.8.2", to: "3.9.2", broker: "3.9.2", eager: true },
  { from: "4.1.2", to: "3.9.2", broker: "4.1.2", eager: false },
];

export const pathName = (p: UpgradePath): string => `${p.from}>${p.to}`;

/** Versions older than 3.6 have no KRaft broker the lab runs: they join a 3.9 broker. */
export function brokerFor(version: string): string | undefined {
  return /^(2\.|3\.[0-5]\.)/.test(version) ? "3.9.2" : undefined;
}

export interface MatrixArgs {
  readonly versions: readonly string[];
  readonly paths: readonly UpgradePath[];
  readonly json: string | null;
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim().replace(/^v/, ""))
    .filter((v) => v !== "");
}

/**
 * `--kafka V,V…` (default: DEFAULT_VERSIONS), `--paths [all|FROM>TO,…]` (the upgrade paths; alone, only them),
 * `--json FILE`. A usage problem is a one-line string.
 */
export function parseMatrixArgs(argv: readonly string[]): MatrixArgs | string {
  let kafka: string | null = null;
  let paths: string | null = null;
  let json: string | null = null;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, null];
    const next = () => inline ?? argv[++i] ?? "";
    if (flag === "--kafka") kafka = next();
    else if (flag === "--json") json = next();
    else if (flag === "--paths") {
      const value = inline ?? (argv[i + 1]?.startsWith("--") === false ? argv[++i] : undefined);
      paths = value ?? "all";
    } else return `unknown argument ${arg} (use --kafka V,V…, --paths [all|FROM>TO,…], --json FILE)`;
  }
  if (kafka !== null && list(kafka).length === 0) return "--kafka needs at least one version";
  const versions = kafka !== null ? list(kafka) : paths !== null ? [] : DEFAULT_VERSIONS;
  let chosen: UpgradePath[] = [];
  if (paths !== null && paths !== "all") {
    for (const name of list(paths)) {
      const found = UPGRADE_PATHS.find((p) => pathName(p) === name);
      if (!found) return `unknown path ${name} (paths: ${UPGRADE_PATHS.map(pathName).join(", ")})`;
      chosen.push(found);
    }
  } else if (paths === "all") chosen = [...UPGRADE_PATHS];
  return { versions, paths: chosen, json };
}
