// register(api): synchronous, idempotent, and the same wiring on OpenClaw 2026.2 and 2026.9.

import assert from "node:assert/strict";
import { test } from "node:test";

import plugin, { createPlugin, HOOK_NAMES, PLUGIN_ID } from "../index.js";
import { fakeApi } from "./helpers.js";

test("the default export is {id, register} and register is synchronous", () => {
  assert.equal(plugin.id, PLUGIN_ID);
  assert.equal(typeof plugin.register, "function");
  const api = fakeApi();
  assert.equal(plugin.register(api), undefined, "register returns nothing (no promise)");
  assert.equal(plugin.register.constructor.name, "Function");
});

test("register wires four typed hooks and one factory for both tools", () => {
  for (const version of ["2026.2", "2026.9"]) {
    const api = fakeApi({ version });
    createPlugin().register(api);
    assert.deepEqual(Object.keys(api.hooks).sort(), [...HOOK_NAMES].sort(), version);
    assert.equal(api.toolFactories.length, 1, version);
    assert.deepEqual(api.toolFactories[0].opts, { names: ["memory_search", "memory_get", "memory_forget", "memory_close"] });
  }
});

test("register called again with the same api wires nothing twice", () => {
  const instance = createPlugin();
  const api = fakeApi();
  instance.register(api);
  instance.register(api); // fakeApi throws if a hook is registered twice
  assert.equal(api.toolFactories.length, 1);
});

test("each registry OpenClaw makes (a new api each time) gets its own full wiring", () => {
  const instance = createPlugin();
  const apis = [fakeApi(), fakeApi({ version: "2026.2" }), fakeApi()];
  for (const api of apis) instance.register(api);
  for (const api of apis) {
    assert.equal(Object.keys(api.hooks).length, HOOK_NAMES.length);
    assert.equal(api.toolFactories.length, 1);
  }
});

test("register runs no command: nothing starts until a hook fires", async () => {
  const { fakeZettelclaw } = await import("./helpers.js");
  const fake = fakeZettelclaw();
  try {
    createPlugin().register(fakeApi({ pluginConfig: { command: fake.exe, logDir: fake.logDir } }));
    assert.deepEqual(fake.records(), []);
  } finally {
    fake.cleanup();
  }
});

test("before_prompt_build asks for a budget a little above its own timeout", () => {
  const api = fakeApi();
  createPlugin({ handoffTimeoutMs: 1000 }).register(api);
  assert.equal(api.hookOptions.before_prompt_build.timeoutMs, 3000);
  assert.equal(api.hookOptions.session_end, undefined);
});
