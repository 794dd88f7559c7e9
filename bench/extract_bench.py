"""Extraction benchmarks, against the fake Anthropic server (no network, no key).

1. Transcript overhead: characters of transcript sent to the model ÷ characters of user and
   assistant text in the raw transcripts (target ≤ 1.10; the fixed prompt, the subjects and
   the framing tags are reported apart). Sessions: the real OpenClaw 2026.9.6 transcript when
   ``../shared/data`` is there, the demo home, and a synthetic long session with tool calls
   that is split into chunks.
2. Sweep throughput: 200 sessions, the fake answering each call after 1 s, ``zettelclaw sweep
   --concurrency 8`` in a subprocess; ideal 200 / 8 × 1 s = 25 s (target ≤ 1.25×).

    python bench/extract_bench.py [--sessions 200] [--latency 1] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fake_anthropic import FakeAnthropic  # noqa: E402
from tests.openclaw_home import OpenClawHome  # noqa: E402

REAL_DB = ROOT.parent / "shared" / "data" / "openclaw-2026.9.6" / "openclaw-agent.sqlite"
HANDOFF = '{"type":"handoff","content":"bench"}'


def _env(tmp: Path) -> dict:
    state = tmp / "openclaw"
    return {"HOME": str(tmp), "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
            "OPENCLAW_WORKSPACE_DIR": str(state / "workspace"),
            "ZETTELCLAW_HOME": str(tmp / "zettelclaw")}


def _raw_text_chars(events) -> int:
    """What the human and the assistant wrote, as stored: text parts of user/assistant
    messages (tool calls, tool results, thinking, bootstrap events excluded)."""
    total = 0
    for event in events:
        if not isinstance(event, dict) or event.get("type") != "message":
            continue
        message = event.get("message") or {}
        if message.get("role") not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            total += sum(len(p.get("text", "")) for p in content
                         if isinstance(p, dict) and p.get("type") == "text")
    return total


def _events_of(ref) -> list[dict]:
    if ref.layout == "2026.2":
        files = sorted(ref.path.parent.glob(f"{ref.session_id}.jsonl*"))
        return [json.loads(line) for f in files for line in f.read_text().splitlines()
                if line.strip()]
    conn = sqlite3.connect(f"file:{ref.path}?mode=ro", uri=True)
    rows = conn.execute("SELECT event_json FROM transcript_events WHERE session_id = ? "
                        "ORDER BY seq", (ref.session_id,)).fetchall()
    conn.close()
    return [json.loads(r[0]) for r in rows if r[0]]


def _long_session(home: OpenClawHome) -> None:
    turns = []
    for n in range(120):
        turns.append(("user", f"Step {n} of the migration: " + "we should check the retry "
                      "queue, the dead-letter handling and the canary metrics. " * 3))
        turns.append(("tool", "exec", {"command": f"kubectl logs deploy/webhooks --tail {n}"},
                      "log line\n" * 200))
        turns.append(("assistant", f"For step {n}: " + "the queue drained normally, p99 "
                      "latency stayed under two seconds, no dead letters. " * 4))
    home.jsonl_session("bench", "0a0b0c0d-long-4000-8000-000000000001", turns,
                       key="agent:bench:main",
                       start=datetime(2026, 11, 1, tzinfo=timezone.utc))


def overhead() -> None:
    from zettelclaw import transcripts
    from zettelclaw.extract import Extractor

    tmp = Path(tempfile.mkdtemp(prefix="zc-bench-"))
    try:
        state = tmp / "openclaw"
        shutil.copytree(ROOT / "examples" / "openclaw-home", state)
        if REAL_DB.is_file():
            real = state / "agents" / "real" / "agent"
            real.mkdir(parents=True)
            shutil.copy(REAL_DB, real / "openclaw-agent.sqlite")
        _long_session(OpenClawHome(state))
        os.environ.update(_env(tmp))
        os.environ["ZETTELCLAW_CHUNK_CHARS"] = "20000"  # so the long session is chunked
        with FakeAnthropic() as fake:
            fake.default.text = HANDOFF
            os.environ.update({"ANTHROPIC_BASE_URL": fake.url,
                               "ANTHROPIC_API_KEY": fake.api_key})
            extractor = Extractor()
            rows = []
            for ref in transcripts.list_sessions():
                if not transcripts.in_scope(ref.session_key):
                    continue
                shutil.rmtree(tmp / "zettelclaw", ignore_errors=True)  # no existing entries
                before = len(fake.message_requests)
                extractor.extract_session(ref.session_id, ref=ref, agent=ref.agent_id)
                requests = fake.message_requests[before:]
                raw = _raw_text_chars(_events_of(ref))
                sent = framing = prompt = 0
                for request in requests:
                    user = request.user_text
                    body = user.split("<transcript>\n", 1)[1].rsplit("\n</transcript>", 1)[0]
                    sent += len(body)
                    framing += len(user) - len(body)
                    prompt += len(request.system_text)
                rows.append((f"{ref.agent_id}/{ref.session_id[:8]}", raw, sent, framing,
                             prompt, len(requests)))
    finally:
        os.environ.pop("ZETTELCLAW_CHUNK_CHARS", None)
        shutil.rmtree(tmp, ignore_errors=True)

    print("1. characters sent to the model / user+assistant text characters")
    print(f"   {'session':<16} {'text':>8} {'sent':>8} {'ratio':>6} {'calls':>5} "
          f"{'framing':>8} {'prompt':>8}")
    for name, raw, sent, framing, prompt, calls in rows:
        print(f"   {name:<16} {raw:>8} {sent:>8} {sent / raw:>6.3f} {calls:>5} "
              f"{framing:>8} {prompt:>8}")
    raw = sum(r[1] for r in rows)
    sent = sum(r[2] for r in rows)
    fixed = sum(r[3] + r[4] for r in rows)
    print(f"   overall transcript ratio {sent / raw:.3f} (target <= 1.10); "
          f"fixed prompt + subjects + framing: {fixed} chars over "
          f"{sum(r[5] for r in rows)} calls ({(sent + fixed) / raw:.2f} with it)")


def sweep_bench(sessions: int, latency: float, concurrency: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="zc-bench-sweep-"))
    try:
        home = OpenClawHome(tmp / "openclaw")
        start = datetime(2026, 10, 1, tzinfo=timezone.utc)
        for n in range(sessions):
            home.jsonl_session(
                "main", f"5e55{n:04d}-0000-4000-8000-{n:012d}",
                [("user", f"Session {n}: let's decide how to shard the webhook queue."),
                 ("assistant", "Shard by tenant id; 16 partitions to start."),
                 ("user", "Agreed, and Max reviews the partition map.")],
                key=f"agent:main:telegram:direct:{n}", start=start + timedelta(minutes=n))
        env = {**os.environ, **_env(tmp)}
        with FakeAnthropic(latency=latency) as fake:
            fake.default.text = HANDOFF
            env.update({"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": fake.api_key})
            exe = Path(sys.executable).parent / "zettelclaw"
            cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]
            began = time.perf_counter()
            proc = subprocess.run(cmd + ["sweep", "--concurrency", str(concurrency)], env=env,
                                  capture_output=True, text=True)
            elapsed = time.perf_counter() - began
            calls = len(fake.message_requests)
            peak = fake.max_in_flight
        if proc.returncode != 0:
            print(proc.stdout, proc.stderr)
        ideal = sessions / concurrency * latency
        print(f"2. sweep of {sessions} sessions, {latency:g} s model latency, "
              f"--concurrency {concurrency}")
        print(f"   {proc.stdout.strip()}")
        print(f"   {calls} model calls, at most {peak} at once; wall {elapsed:.1f} s, ideal "
              f"{ideal:.1f} s: {elapsed / ideal:.2f}x (target <= 1.25x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--skip-sweep", action="store_true")
    args = parser.parse_args()
    overhead()
    if not args.skip_sweep:
        sweep_bench(args.sessions, args.latency, args.concurrency)


if __name__ == "__main__":
    main()
