// Copies the non-TypeScript files the runtime loads (Lua scripts, sandbox page assets, the lab connector's Java
// sources) from src/ to dist/.
import { cpSync, existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ASSET = /\.(lua|html|css|js|svg|png|java)$/;
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (ASSET.test(name)) cpSync(path, join("dist", relative("src", path)));
  }
}
if (existsSync("src")) walk("src");
