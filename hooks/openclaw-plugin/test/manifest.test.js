// The files OpenClaw reads before it runs any plugin code: package.json and the manifest.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { createPlugin, HOOK_NAMES } from "../index.js";
import { fakeApi } from "./helpers.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const read = (name) => JSON.parse(fs.readFileSync(path.join(root, name), "utf8"));

// A small JSON Schema check: enough of the keywords the manifest uses to prove that the
// design's §8.4 config and init's defaults validate, and that a typo does not.
function check(schema, value, where = "config") {
  const errors = [];
  const type = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (schema.type === "integer") {
    if (!Number.isInteger(value)) errors.push(`${where}: not an integer`);
  } else if (schema.type && schema.type !== type) {
    errors.push(`${where}: ${type}, expected ${schema.type}`);
    return errors;
  }
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${where}: not one of ${schema.enum}`);
  if (typeof schema.minLength === "number" && typeof value === "string" && value.length < schema.minLength) {
    errors.push(`${where}: too short`);
  }
  if (type === "object") {
    for (const [key, child] of Object.entries(value)) {
      const sub = schema.properties?.[key];
      if (sub) errors.push(...check(sub, child, `${where}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${where}.${key}: not allowed`);
    }
  }
  if (type === "array" && schema.items) {
    value.forEach((item, i) => errors.push(...check(schema.items, item, `${where}[${i}]`)));
  }
  return errors;
}

test("package.json is an ESM package whose OpenClaw extension is index.js", () => {
  const pkg = read("package.json");
  assert.equal(pkg.type, "module");
  // OpenClaw 2026.2 derives the plugin id of `plugins install --link` from the package name
  assert.equal(pkg.name, read("openclaw.plugin.json").id);
  assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
  assert.equal(pkg.dependencies, undefined, "no npm dependencies");
  assert.ok(fs.existsSync(path.join(root, "index.js")));
});

test("the manifest claims the memory slot, starts with the gateway and owns both tools", () => {
  const manifest = read("openclaw.plugin.json");
  assert.equal(manifest.id, "zettelclaw");
  assert.equal(manifest.kind, "memory");
  assert.equal(manifest.activation.onStartup, true);
  assert.deepEqual([...manifest.contracts.tools].sort(),
    ["memory_close", "memory_forget", "memory_get", "memory_search"]);
  assert.equal(createPlugin().id, manifest.id);
});

test("contracts.tools lists exactly the tools register() creates", () => {
  const manifest = read("openclaw.plugin.json");
  const api = fakeApi();
  createPlugin().register(api);
  const [{ factory, opts }] = api.toolFactories;
  const made = factory({}).map((t) => t.name).sort();
  assert.deepEqual(made, [...manifest.contracts.tools].sort());
  assert.deepEqual([...opts.names].sort(), made);
  assert.deepEqual(Object.keys(api.hooks).sort(), [...HOOK_NAMES].sort());
});

test("the config schema accepts the design's §8.4 config plus init's defaults", () => {
  const { configSchema } = read("openclaw.plugin.json");
  const design = {
    logDir: "~/.openclaw/zettelclaw",
    extraction: { model: "anthropic/claude-sonnet-4-6", skipSessionTypes: ["cron:", "sub:", "hook:"] },
    briefing: {
      model: "anthropic/claude-sonnet-4-6", activeWindow: 14, decisionWindow: 7,
      staleThreshold: 30, maxLines: 80,
    },
    cron: { schedule: "0 3 * * *", timezone: "America/Detroit" },
  };
  assert.deepEqual(check(configSchema, design), []);
  const init = {
    logDir: "~/.openclaw/zettelclaw",
    command: "/home/me/.local/bin/zettelclaw",
    cron: { schedule: "0 3 * * *", timezone: "UTC" },
    vault: { path: "~/Obsidian/Memory" },  // init --vault DIR
  };
  assert.deepEqual(check(configSchema, init), []);
  assert.deepEqual(check(configSchema, {}), []);
});

test("the config schema is strict: a misspelt key is an error, not silently ignored", () => {
  const { configSchema } = read("openclaw.plugin.json");
  assert.equal(configSchema.additionalProperties, false);
  for (const section of ["extraction", "briefing", "cron", "vault"]) {
    assert.equal(configSchema.properties[section].additionalProperties, false, section);
  }
  assert.notDeepEqual(check(configSchema, { logdir: "/tmp/x" }), []);
  assert.notDeepEqual(check(configSchema, { briefing: { maxLine: 80 } }), []);
  assert.notDeepEqual(check(configSchema, { briefing: { maxLines: "80" } }), []);
  assert.notDeepEqual(check(configSchema, { vault: { dir: "~/vault" } }), []);
  assert.notDeepEqual(check(configSchema, { vault: "~/vault" }), []);
});
