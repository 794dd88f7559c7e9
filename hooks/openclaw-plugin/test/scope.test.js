// Whose session a key is (lib/scope.js personOfKey): the same table as zettelclaw's
// (tests/data/openclaw-session-keys.json: keys made by OpenClaw's own key builder).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { NOBODY, NO_SESSION_KEY, OWNER, personOfKey, sessionKeyArg } from "../lib/scope.js";

const TABLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)),
  "../../../tests/data/openclaw-session-keys.json");

test("every key OpenClaw's builder makes is the same person here as in zettelclaw", () => {
  const { cases } = JSON.parse(fs.readFileSync(TABLE, "utf8"));
  assert.ok(cases.length > 30);
  for (const row of cases) {
    for (const [version, key] of Object.entries(row.keys)) {
      assert.equal(personOfKey(key, row.config), row.person, `${version}: ${row.name} (${key})`);
    }
  }
});

test("a key that is not a person's direct session is nobody's", () => {
  for (const key of [undefined, null, "", "  ", "main", "unknown", "global", "agent:main",
    "agent::main", "agent:main:cron:nightly", "agent:main:subagent:x1", "agent:main:hook:gmail:1",
    "agent:main:dashboard:1b2c", "agent:main:telegram:direct:", "agent:main:direct:"]) {
    assert.equal(personOfKey(key, {}), NOBODY, String(key));
  }
  assert.equal(personOfKey("agent:main:main", {}), OWNER);
  assert.equal(personOfKey("agent:main:home", { session: { mainKey: "home" } }), OWNER);
  assert.equal(personOfKey("agent:main:main", { session: { mainKey: "home" } }), NOBODY);
});

test("a call without a session key passes one that zettelclaw reads as nobody's", () => {
  assert.equal(sessionKeyArg(undefined), NO_SESSION_KEY);
  assert.equal(sessionKeyArg("  "), NO_SESSION_KEY);
  assert.equal(personOfKey(NO_SESSION_KEY, {}), NOBODY);
  assert.equal(sessionKeyArg(" agent:main:main "), "agent:main:main");
});
