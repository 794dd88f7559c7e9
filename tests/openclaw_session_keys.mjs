// The session keys OpenClaw's own key builder makes for each row of
// tests/data/openclaw-session-keys.json: `node tests/openclaw_session_keys.mjs <openclaw package
// dir> < rows.json` prints one key per row (a JSON array). The builder is found in the package's
// dist by its name (`buildAgentPeerSessionKey`, with `resolveThreadSessionKeys` for a thread),
// whatever chunk the bundler put it in. tests/test_session_keys.py runs it.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

function exportedAs(source, name) {
  for (const clause of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of clause[1].split(",")) {
      const [local, alias] = part.trim().split(/\s+as\s+/);
      if (local === name) return alias || local;
    }
  }
  return undefined;
}

async function builders(packageDir) {
  const dist = join(packageDir, "dist");
  for (const file of readdirSync(dist).sort()) {
    if (!/\.m?js$/.test(file)) continue;
    const source = readFileSync(join(dist, file), "utf8");
    if (!source.includes("function buildAgentPeerSessionKey(")) continue;
    const build = exportedAs(source, "buildAgentPeerSessionKey");
    const thread = exportedAs(source, "resolveThreadSessionKeys");
    if (!build || !thread) continue;
    const module = await import(pathToFileURL(join(dist, file)).href);
    return { build: module[build], thread: module[thread] };
  }
  throw new Error(`no buildAgentPeerSessionKey exported under ${dist}`);
}

const packageDir = process.argv[2];
const rows = JSON.parse(readFileSync(0, "utf8"));
const { build, thread } = await builders(packageDir);
const keys = rows.map((row) => {
  const base = build({ agentId: "main", mainKey: "main", ...row.build });
  if (!row.thread) return base;
  return thread({ baseSessionKey: base, threadId: row.thread }).sessionKey;
});
process.stdout.write(JSON.stringify(keys));
