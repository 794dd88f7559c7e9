"""Every test runs against temp dirs: no test can touch a real ~/.openclaw."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tests.fake_anthropic import fake_anthropic  # noqa: F401  (fixture: the fake model server)

# under -q, each end-to-end test named as it starts (make test runs them first, minutes each)
pytest_plugins = ["tests.e2e_progress"]

REPO = Path(__file__).resolve().parents[1]
# what a person reads: the front page and the reference pages under docs/
DOC_PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

# the design's own example lines (§3.3), in log order
DESIGN_LINES = [
    {"id": "a3k9x_BmQ2yT", "timestamp": "2026-02-20T14:20:00Z", "type": "decision",
     "content": "Queue-based retries for webhook delivery", "detail": "Cascading failure risk",
     "subject": "auth-migration", "session": "abc12345"},
    {"id": "r7Wp3nKx_mZe", "timestamp": "2026-02-20T14:35:00Z", "type": "fact",
     "content": "Exponential backoff intervals: 1s, 5s, 15s", "subject": "auth-migration",
     "session": "abc12345"},
    {"id": "Ht4vL_9qRx2D", "timestamp": "2026-02-20T15:10:00Z", "type": "task",
     "content": "Write backfill script for 47 failed webhook jobs from last week",
     "status": "open", "subject": "auth-migration", "session": "abc12345"},
    {"id": "Jn2fR_7vKw4X", "timestamp": "2026-02-20T15:15:00Z", "type": "question",
     "content": "Is the current retry strategy sufficient for webhook bursts over 10k/min?",
     "subject": "auth-migration", "session": "abc12345"},
    {"id": "Ym8kP_3wNx5Q", "timestamp": "2026-02-20T15:30:00Z", "type": "handoff",
     "content": "Auth migration — retry logic implementation, backfill script not started",
     "detail": "Exponential backoff working in staging. Still need backfill script for 47 "
               "failed jobs, then canary deploy. Load testing not done yet.",
     "subject": "auth-migration", "session": "abc12345"},
    {"id": "Cx6tM_1pWn8Y", "timestamp": "2026-02-26T10:00:00Z", "type": "decision",
     "content": "Queue-based retries with dead-letter queue for permanent failures",
     "detail": "Discovered some failures are non-retryable, need a DLQ",
     "subject": "auth-migration", "replaces": "a3k9x_BmQ2yT", "session": "def67890"},
    {"id": "Dw9sN_2qXk7Z", "timestamp": "2026-02-26T10:05:00Z", "type": "fact",
     "content": "Exponential backoff intervals: 2s, 10s, 30s",
     "detail": "Previous entry had wrong intervals", "replaces": "r7Wp3nKx_mZe",
     "session": "def67890"},
]


@pytest.fixture(autouse=True)
def zc_env(tmp_path, monkeypatch):
    """Point HOME, the log dir, OpenClaw's state dir, config and workspace at tmp_path."""
    home = tmp_path / "home"
    state = home / ".openclaw"
    workspace = state / "workspace"
    workspace.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(state / "openclaw.json"))
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(workspace))
    monkeypatch.setenv("ZETTELCLAW_HOME", str(state / "zettelclaw"))
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
                "ZETTELCLAW_NOW"):
        monkeypatch.delenv(var, raising=False)
    return {"home": home, "state": state, "workspace": workspace,
            "log_dir": state / "zettelclaw"}


@pytest.fixture
def log_dir(zc_env) -> Path:
    return zc_env["log_dir"]


def write_log(log_dir: Path, entries, *, raw_tail: bytes = b"") -> Path:
    """Write entries as compact lines, the way zettelclaw stores them."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "log.jsonl"
    with open(path, "ab") as fh:
        for entry in entries:
            fh.write(orjson.dumps(entry) + b"\n")
        fh.write(raw_tail)
    return path


def occupy(path: Path, kind: str, elsewhere: Path):
    """Put something else where a file goes: a FIFO, a symlink to ``elsewhere`` or a
    directory; returns the check that it is still there, untouched."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        path.symlink_to(elsewhere)
    else:
        path.mkdir()
    return {"fifo": path.is_fifo, "symlink": path.is_symlink, "directory": path.is_dir}[kind]


@pytest.fixture
def home(zc_env):
    """The test's OpenClaw state dir, to write sessions into (tests/openclaw_home.py)."""
    from tests.openclaw_home import OpenClawHome

    return OpenClawHome(zc_env["state"])


@pytest.fixture
def design_log(log_dir) -> Path:
    return write_log(log_dir, DESIGN_LINES)


class Cli:
    """Run the real CLI in-process (CliRunner) with separate stdout and stderr."""

    def __init__(self):
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None):
        from zettelclaw.cli import app

        return self.runner.invoke(app, list(args), input=input, catch_exceptions=False)

    def lines(self, *args: str) -> list[dict]:
        result = self(*args)
        assert result.exit_code == 0, result.stderr
        return [orjson.loads(line) for line in result.stdout.splitlines() if line.strip()]


@pytest.fixture
def cli() -> Cli:
    return Cli()


def run_zettelclaw(*args: str, input: bytes | None = None, env: dict | None = None,
                   timeout: float = 60) -> subprocess.CompletedProcess:
    """Run the installed executable in a real subprocess."""
    exe = Path(sys.executable).parent / "zettelclaw"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]
    return subprocess.run(cmd + list(args), input=input, capture_output=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


@pytest.fixture
def zc():
    return run_zettelclaw
