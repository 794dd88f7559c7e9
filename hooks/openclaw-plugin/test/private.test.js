// <private>...</private> in the plugin: the same rules as zettelclaw/private.py (the same table
// as tests/test_private.py), and before_reset's messages reach `extract`'s stdin without it.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { createPlugin } from "../index.js";
import { echoHider, hideInMessages, hidePrivate, stripPrivate } from "../lib/private.js";
import { fakeApi, fakeZettelclaw } from "./helpers.js";

const fakes = [];
after(() => fakes.forEach((f) => f.cleanup()));

test("the tags: case, spaces, attributes, left open, nested, stray, mistyped, full-width, code", () => {
  const table = [
    ["a <private>b</private> c", "a [private] c"],
    ["a <Private>b</PRIVATE> c", "a [private] c"],
    ["a < private >b< / private > c", "a [private] c"],
    ['a <private reason="hr">b</private> c', "a [private] c"],
    ["a <private>b\nc\nd", "a [private]"],
    ["a <private>b <private>c</private> d</private> e", "a [private] e"],
    ["a </private> b", "[private] b"],
    ["a <private>b</private> c </private> d", "a [private][private] d"],
    ["a <private LEAK</private> c", "a [private] c"],
    ["a <private/> 4417", "a [private]"],
    ["a ＜private＞4417＜／private＞ c", "a [private] c"],
    ["a ＜ＰＲＩＶＡＴＥ＞4417", "a [private]"],
    ["```\n<private>x</private>\n```", "```\n[private]\n```"],
    ["`<private>x</private>`", "`[private]`"],
    ["<privateer> and <private-notes> stay", "<privateer> and <private-notes> stay"],
    ["nothing to hide", "nothing to hide"],
  ];
  for (const [text, expected] of table) assert.equal(hidePrivate(text).text, expected, text);
  assert.deepEqual(hidePrivate("x <private>one</private> y <private>two").spans, ["one", "two"]);
  assert.equal(stripPrivate("retries <private>my PIN 4417</private>?"), "retries ?");
});

test("an echo: any case and spacing, whole words, a line or a number of a span", () => {
  const hide = echoHider(["Tom Baker", "a\nsecond line here", "my PIN is 4417-A, ok"]);
  assert.equal(hide("I told TOM   baker, then Tomorrow"), "I told [private], then Tomorrow");
  assert.equal(hide("on the second line here!"), "on the [private]!");
  assert.equal(hide("Tom"), "Tom");
  assert.equal(hide("PIN 4417-A noted"), "PIN [private] noted");
  assert.equal(echoHider([" "]), null);
});

test("before_reset's stdin holds no private text, and the rest as it was", async () => {
  const fake = fakeZettelclaw();
  fakes.push(fake);
  const api = fakeApi({ version: "2026.2", pluginConfig: { command: fake.exe, logDir: fake.logDir } });
  createPlugin().register(api);
  const messages = [
    { role: "user", content: "deploy Friday <private>my PIN is Zanzibar-4417</private> ok" },
    { role: "assistant", content: [{ type: "text", text: "Noted, PIN zanzibar-4417." },
      { type: "thinking", thinking: "they said Zanzibar-4417" }] },
    { type: "message", message: { role: "user", content: [{ type: "text", text: "<PRIVATE>Quetzalcoatl" }] } },
  ];
  const before = JSON.stringify(messages);
  api.hooks.before_reset({ messages, reason: "new" }, { agentId: "main", sessionId: "s-9" });
  const [done] = await fake.waitForRecords(1);
  assert.ok(!/zanzibar|quetzalcoatl/i.test(done.stdin), done.stdin);
  assert.deepEqual(JSON.parse(done.stdin), [
    { role: "user", content: "deploy Friday [private] ok" },
    { role: "assistant", content: [{ type: "text", text: "Noted, PIN [private]." },
      { type: "thinking", thinking: "they said [private]" }] },
    { type: "message", message: { role: "user", content: [{ type: "text", text: "[private]" }] } },
  ]);
  assert.equal(JSON.stringify(messages), before, "OpenClaw's own messages are left alone");
  assert.deepEqual(hideInMessages([]), []);
});

test("a span runs on across a message's parts and into the person's next messages", () => {
  const hidden = hideInMessages([
    { role: "user", content: [{ type: "text", text: "my card: <private>Zanzibar" },
      { type: "image", data: "..." }, { type: "text", text: "4111 1111 1111 1111" }] },
    { role: "assistant", content: "Go on." },
    { role: "user", content: "expires 09/29" },
    { role: "user", content: "cvc 123</private> deploy on Friday" },
    { role: "assistant", content: "Noted 4111 1111 1111 1111." },
  ]);
  assert.deepEqual(hidden, [
    { role: "user", content: [{ type: "text", text: "my card: [private]" },
      { type: "image", data: "..." }, { type: "text", text: "[private]" }] },
    { role: "assistant", content: "Go on." },
    { role: "user", content: "[private]" },
    { role: "user", content: "[private] deploy on Friday" },
    { role: "assistant", content: "Noted [private]." },
  ]);
});

test("a large private paste is hidden, and found again, without a regular expression of it", () => {
  const lines = Array.from({ length: 20000 }, (_, n) => `row ${n} account ${7000000 + n * 37}`);
  const echo = `the notes. ${"nothing here. ".repeat(70000)}${lines[12345]} and ${7000000 + 99 * 37}`;
  const [, answer] = hideInMessages([
    { role: "user", content: `paste <private>${lines.join("\n")}</private> done` },
    { role: "assistant", content: echo },
  ]);
  assert.ok(answer.content.endsWith("nothing here. [private] and [private]"),
    answer.content.slice(-80));
});
