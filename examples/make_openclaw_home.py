"""Build ``examples/openclaw-home/``: a small OpenClaw state dir for ``make demo``.

Two agents, both OpenClaw layouts:

* ``main`` on the 2026.2 layout (``sessions/sessions.json`` + one JSONL per session): an auth
  migration kick-off rotated away by ``/new`` (``.jsonl.reset.<time>``), the current session
  choosing a tool for the backfill script, and a cron session (never extracted);
* ``work`` on the 2026.9 layout (``agent/openclaw-agent.sqlite``, OpenClaw's own table shapes):
  one sessionId holding two conversations split by a ``reset`` event, the second correcting
  the first (a customer's SSO deadline), and a subagent session (never extracted).

Run ``python examples/make_openclaw_home.py`` to rebuild it; ``examples/recorded/`` holds the
model output recorded for exactly these conversations, named ``<sessionId>.<segment>.jsonl``.
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.openclaw_home import OpenClawHome  # noqa: E402

HOME = ROOT / "examples" / "openclaw-home"

KICKOFF = "6f1c2a9e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"
BACKFILL = "a2b3c4d5-e6f7-4a8b-9c0d-1e2f3a4b5c6d"
NIGHTLY = "c0ffee00-1111-4222-8333-444455556666"
ACME = "d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70"
SUBAGENT = "e5f6a7b8-c9d0-4e1f-9a2b-3c4d5e6f7a81"

T0 = datetime(2026, 11, 16, 14, 5, tzinfo=timezone.utc)

KICKOFF_TURNS = [
    ("user", "Let's get the auth migration moving. The old auth service is going away at the "
             "end of the quarter and webhooks are the scary part."),
    ("assistant", "Agreed. Last time we talked, webhook delivery retried synchronously inside "
                  "the request. Do you want to keep that?"),
    ("user", "No. During the February outage the synchronous retries cascaded and took the "
             "API down with them. Webhook retries go through a queue from now on."),
    ("assistant", "Queue-based retries it is. I'll sketch it with exponential backoff. Any "
                  "preference for the intervals?"),
    ("user", "1s, 5s, 15s, and cap it at 3 retries. After that the job is dead."),
    ("tool", "exec", {"command": "grep -c 'webhook_failed' logs/2026-11-09.log"}, "47"),
    ("assistant", "There are 47 webhook jobs that failed last week and never got delivered. "
                  "They'll need a backfill once the queue is live."),
    ("user", "Right, someone has to write a backfill script for those 47. Not today though. "
             "And Max owns the canary deploy. He hates status meetings: ping him async in "
             "#auth-migration."),
    ("assistant", "Got it. One open question: is a single queue enough for bursts over "
                  "10k webhooks a minute?"),
    ("user", "Good question, I don't know yet. We need a load test before the canary."),
]

BACKFILL_TURNS = [
    ("user", "About the backfill script for the 47 failed webhooks: bash or Python?"),
    ("assistant", "Either works. Python is easier to test; bash has no dependencies."),
    ("user", "Python, managed with uv like the rest of our repos. No more pip and "
             "requirements.txt in new projects."),
    ("thinking", "The user standardizes on uv; keep the script self-contained."),
    ("assistant", "Then a small uv project with httpx for the deliveries and a dry-run flag."),
    ("user", "Yes, a --dry-run flag is a must: Max wants to see the list before anything "
             "is sent. I'll start on it tomorrow morning."),
    ("assistant", "I'll have a skeleton ready for tomorrow."),
]

ACME_FIRST = [
    ("user", "Call notes: Priya Raman from Acme wants SSO for their 400 seats. She needs it "
             "by the end of January."),
    ("assistant", "Do they use SAML or OIDC?"),
    ("user", "Their IdP is Okta, SAML only for now. We'll do SAML first and OIDC later; OIDC "
             "isn't worth it until a second customer asks."),
    ("assistant", "Makes sense. Should I draft the SAML metadata exchange email to Priya?"),
    ("user", "Yes, send Priya our SAML metadata this week."),
]

ACME_SECOND = [
    ("user", "Correction on Acme: Priya emailed, their deadline is mid-February, not end of "
             "January. Their security review moved."),
    ("assistant", "That gives us about two more weeks. Does that change the SAML-first plan?"),
    ("user", "No, SAML first still. I sent her the metadata this morning, so that's done."),
    ("assistant", "Great, I'll mark the metadata email as sent."),
]


def build(target: Path = HOME) -> Path:
    if target.exists():
        shutil.rmtree(target)
    home = OpenClawHome(target)
    home.jsonl_session("main", KICKOFF, KICKOFF_TURNS, start=T0, rotated=True)
    home.jsonl_session("main", BACKFILL, BACKFILL_TURNS, key="agent:main:main",
                       start=T0 + timedelta(days=2, hours=1))
    home.jsonl_session("main", NIGHTLY, [("user", "[cron:nightly-digest] Summarize today's "
                                                  "GitHub notifications."),
                                         ("assistant", "3 PRs need review.")],
                       key="cron:nightly-digest", start=T0 + timedelta(days=2, hours=12))
    home.db_session("work", ACME, [ACME_FIRST, ACME_SECOND], key="agent:work:main",
                    start=T0 + timedelta(days=3), step=timedelta(minutes=3))
    home.db_session("work", SUBAGENT, [[("user", "Crawl the Okta SAML docs and list the "
                                                 "metadata fields."),
                                        ("assistant", "EntityID, SSO URL, x509 cert.")]],
                    key="agent:work:subagent:7f3e", start=T0 + timedelta(days=3, hours=1),
                    current=False)
    config = {"plugins": {"entries": {"zettelclaw": {"enabled": True, "config": {
        "extraction": {"model": "anthropic/claude-sonnet-4-6",
                       "skipSessionTypes": ["cron:", "sub:", "hook:"]}}}}}}
    (target / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n")
    workspace = target / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(
        "# Memory\n\nThe user is a backend engineer who runs the auth migration.\n"
        "Prefers short answers and async communication.\n")
    return target


if __name__ == "__main__":
    print(f"built {build()}")
