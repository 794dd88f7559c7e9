// agent:bootstrap: the owner's MEMORY.md stays out of another person's session (issue 39).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { createPlugin } from "../index.js";
import { fakeApi, fakeZettelclaw } from "./helpers.js";

const fakes = [];
after(() => fakes.forEach((f) => f.cleanup()));

const MEMORY = { name: "MEMORY.md", path: "/ws/main/MEMORY.md", content: "I need to migrate the invoice tables before Friday", missing: false };
const AGENTS = { name: "AGENTS.md", path: "/ws/main/AGENTS.md", content: "Be brief.", missing: false };

function setup(get) {
  const fake = fakeZettelclaw().behave({ get });
  fakes.push(fake);
  const api = fakeApi({ pluginConfig: { command: fake.exe, logDir: fake.logDir } });
  createPlugin().register(api);
  const hook = api.internalHooks["agent:bootstrap"];
  assert.equal(typeof hook, "function", "registered for OpenClaw's agent:bootstrap event");
  return { fake, hook };
}

function event(sessionKey) {
  return {
    type: "agent", action: "bootstrap", sessionKey: sessionKey ?? "unknown",
    context: { workspaceDir: "/ws/main", sessionKey, bootstrapFiles: [AGENTS, MEMORY] },
  };
}

test("the owner's briefing is not in the neighbour's system prompt", async () => {
  const { fake, hook } = setup({ code: 2, stderr: "Error: refused: MEMORY.md is the owner's memory\n" });
  const hers = event("agent:main:telegram:direct:555");
  await hook(hers);
  assert.deepEqual(hers.context.bootstrapFiles, [AGENTS]);
  const [run] = fake.records("finished");
  assert.deepEqual(run.argv, ["get", "--json", "--lines", "1", "--agent", "main", "--session-key",
    "agent:main:telegram:direct:555", "--", "MEMORY.md"]);
  assert.equal(run.env.OPENCLAW_WORKSPACE_DIR, "/ws/main");
});

test("the owner's own session keeps MEMORY.md", async () => {
  const { hook } = setup({ stdout: JSON.stringify({ path: "MEMORY.md", text: "# Memory" }) });
  const his = event("agent:main:main");
  await hook(his);
  assert.deepEqual(his.context.bootstrapFiles, [AGENTS, MEMORY]);
});

test("a session without a key, or whose person cannot be told, gets no MEMORY.md", async () => {
  const { fake, hook } = setup({ code: 1, stderr: "Error: boom\n" });
  const none = event(undefined);
  await hook(none);
  assert.deepEqual(none.context.bootstrapFiles, [AGENTS]);
  assert.equal(fake.records("finished").length, 0, "nothing to ask without a key");
  const failed = event("agent:main:main");
  await hook(failed);
  assert.deepEqual(failed.context.bootstrapFiles, [AGENTS]);
});

test("whose a session is, is asked once a minute per session, not on every run", async () => {
  const { fake, hook } = setup({ code: 2, stderr: "Error: refused\n" });
  for (let i = 0; i < 3; i += 1) await hook(event("agent:main:telegram:direct:555"));
  assert.equal(fake.records("finished").length, 1);
});
