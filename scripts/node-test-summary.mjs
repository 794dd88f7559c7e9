// The node tests' reporter for `make test`: a dot per test as it passes (an X when it fails),
// then each failure whole and one summary line, instead of ~520 lines of TAP.
// Run as: node --test --test-reporter=./scripts/node-test-summary.mjs FILES...
import { inspect } from "node:util";

export default async function* summary(source) {
  const failures = [];
  const totals = new Map();
  let column = 0;
  for await (const { type, data } of source) {
    if (type === "test:pass" || type === "test:fail") {
      if (data.details?.type === "suite") continue;
      const failed = type === "test:fail";
      if (failed) failures.push(data);
      yield failed ? "X" : ".";
      column += 1;
      if (column === 60) {
        yield "\n";
        column = 0;
      }
    } else if (type === "test:diagnostic" && data.nesting === 0) {
      const [name, value] = String(data.message).split(" ");
      if (value !== undefined) totals.set(name, value);
    }
  }
  if (column) yield "\n";
  for (const test of failures) {
    const where = test.file ? ` (${test.file}${test.line ? `:${test.line}` : ""})` : "";
    yield `\nnot ok: ${test.name}${where}\n`;
    yield `${inspect(test.details?.error, { depth: 4 })}\n`;
  }
  const n = (key) => totals.get(key) ?? "0";
  const ms = Number(totals.get("duration_ms") ?? 0);
  yield `node tests: ${n("pass")} passed, ${n("fail")} failed, ${n("skipped")} skipped, `
    + `${n("todo")} todo, ${n("cancelled")} cancelled (of ${n("tests")}; `
    + `${(ms / 1000).toFixed(1)} s)\n`;
}
