"""Real OpenClaw for end-to-end tests: the pinned toolchain, a temp HOME, a gateway on loopback.

The toolchain (Node + openclaw from the npm registry) is installed once by
``scripts/openclaw-env.sh`` into ``${XDG_CACHE_HOME:-~/.cache}/zettelclaw-e2e`` and reused.
Everything else lives under the test's temp dir: HOME (so ``~/.openclaw`` is fresh), the
gateway's log, the fake models' records. Nothing reaches the network: OpenClaw's model is
``tests.fake_openai``, zettelclaw's is ``tests.fake_anthropic``.

``ZETTELCLAW_PLUGIN_DIR`` / ``ZETTELCLAW_SKILL_DIR`` pass through to ``zettelclaw init``, so a
working copy of the plugin can be tried against real OpenClaw without reinstalling.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENV_SCRIPT = REPO / "scripts" / "openclaw-env.sh"
VENV_BIN = Path(sys.executable).parent
DEFAULT_VERSION = "2026.9.6"
# The toolchain cache, fixed at import: tests/conftest.py points HOME at a temp dir per test,
# and the cache must outlive it.
CACHE = Path(os.environ.get("ZETTELCLAW_E2E_CACHE") or Path(
    os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "zettelclaw-e2e")

# variables of the developer's shell (or of tests/conftest.py) that would point the real
# processes somewhere else than the temp HOME
_SCRUB = ("ZETTELCLAW_HOME", "OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH",
          "OPENCLAW_WORKSPACE_DIR", "OPENCLAW_BIN", "OPENCLAW_PROFILE", "ANTHROPIC_API_KEY",
          "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL",
          "OPENCLAW_SKIP_CRON", "OPENCLAW_GATEWAY_TOKEN", "XDG_CONFIG_HOME", "XDG_STATE_HOME")


def toolchain(version: str = DEFAULT_VERSION) -> Path:
    """The ``openclaw`` launcher for ``version`` (installing it into the cache if needed)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: cannot fetch Node and OpenClaw for the e2e test")
    proc = subprocess.run(["bash", str(ENV_SCRIPT), version], capture_output=True, text=True,
                          timeout=900, env={**os.environ, "ZETTELCLAW_E2E_CACHE": str(CACHE)})
    if proc.returncode != 0:
        pytest.fail(f"installing openclaw {version} failed:\n{proc.stderr[-3000:]}")
    return Path(proc.stdout.strip().splitlines()[-1])


def home_asking(tmp_path: Path, anthropic, launcher: Path | None = None,
                **env: str) -> OpenClawHome:
    """A temp OpenClaw home (OpenClaw's defaults) whose zettelclaw asks the fake Anthropic
    server ``anthropic`` with a test key; ``env``: more of zettelclaw's environment."""
    return OpenClawHome(tmp_path, launcher or toolchain(), extra_env={
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": anthropic.url, **env})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class OpenClawHome:
    """A temp HOME with an OpenClaw config, and helpers to run openclaw and zettelclaw in it."""

    def __init__(self, root: Path, launcher: Path, *, extra_env: dict[str, str] | None = None):
        self.root = root
        self.home = root / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.launcher = launcher
        self.state = self.home / ".openclaw"
        self.config_path = self.state / "openclaw.json"
        self.workspace = self.state / "workspace"
        self.log_dir = self.state / "zettelclaw"
        self.gateway: subprocess.Popen | None = None
        self.gateway_log = root / "gateway.log"
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
        env.update({
            "HOME": str(self.home),
            "PATH": os.pathsep.join([str(VENV_BIN), str(launcher.parent), env.get("PATH", "")]),
            "OPENCLAW_BIN": str(launcher),
            "TZ": "UTC",
            "NO_COLOR": "1",
            "PYTHONPATH": str(REPO),
        })
        env.update(extra_env or {})
        self.env = env

    # ---- config

    def write_config(self, config: dict) -> None:
        self.state.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(json.dumps(config, indent=2))

    def config(self) -> dict:
        import json5

        return json5.loads(self.config_path.read_text())

    # ---- commands

    def openclaw(self, *args: str, timeout: float = 120, check: bool = True,
                 input: str | None = None) -> subprocess.CompletedProcess:
        return self._run([str(self.launcher), *args], timeout=timeout, check=check, input=input)

    def zettelclaw(self, *args: str, timeout: float = 300, check: bool = True,
                   input: str | None = None) -> subprocess.CompletedProcess:
        exe = VENV_BIN / "zettelclaw"
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]
        return self._run([*cmd, *args], timeout=timeout, check=check, input=input)

    def _run(self, cmd: list[str], *, timeout: float, check: bool,
             input: str | None) -> subprocess.CompletedProcess:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=self.env, cwd=self.root, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd[:4])}... exited {proc.returncode}\n"
                                 f"stdout: {proc.stdout[-3000:]}\nstderr: {proc.stderr[-3000:]}")
        return proc

    def json_of(self, proc: subprocess.CompletedProcess):
        """The JSON document in a command's stdout (OpenClaw may print notices before it)."""
        text = proc.stdout
        starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
        if not starts:
            raise AssertionError(f"no JSON in output:\n{text[-2000:]}\n{proc.stderr[-2000:]}")
        return json.JSONDecoder().raw_decode(text[min(starts):])[0]

    # ---- the gateway

    def start_gateway(self, timeout: float = 120, *, silent_retry: float = 60) -> None:
        """Start the gateway and wait until it listens. A gateway that writes not one line in
        ``silent_retry`` seconds (seen once in a clean-clone run, before OpenClaw logs
        anything) is killed and started once more, said on stderr: what the tests check comes
        after the start, and a start that hangs again still fails."""
        before = self.gateway_log.stat().st_size if self.gateway_log.exists() else 0
        self._launch_gateway()
        silent_until = time.monotonic() + silent_retry
        while time.monotonic() < silent_until and self.gateway.poll() is None:
            if self.gateway_log.stat().st_size > before:
                break
            time.sleep(0.5)
        else:
            if self.gateway.poll() is None:
                sys.stderr.write(f"gateway silent for {silent_retry:.0f}s: started again\n")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.gateway.pid, signal.SIGKILL)
                self.gateway.wait(10)
                self._launch_gateway()
        self._wait_listening(timeout)

    def _launch_gateway(self) -> None:
        log = open(self.gateway_log, "ab")
        self.gateway = subprocess.Popen(
            [str(self.launcher), "gateway", "run", "--bind", "loopback",
             "--port", str(self.port)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env,
            cwd=self.root, start_new_session=True)
        log.close()

    def _wait_listening(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.gateway.poll() is not None:
                raise AssertionError(f"gateway exited {self.gateway.returncode}:\n"
                                     f"{self.gateway_log.read_text()[-4000:]}")
            if "listening" in self.gateway_log.read_text(errors="replace") and _port_open(
                    self.port):
                return
            time.sleep(0.5)
        raise AssertionError(f"gateway not ready in {timeout}s:\n"
                             f"{self.gateway_log.read_text()[-4000:]}")

    def stop_gateway(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Send ``sig`` to the gateway (only the gateway) and wait for it to exit."""
        assert self.gateway is not None
        self.gateway.send_signal(sig)
        try:
            return self.gateway.wait(timeout)
        finally:
            self.gateway = None

    def cleanup(self) -> None:
        """Kill the gateway and what it started (its own process group) if a test left it,
        and every other process still running in this HOME: a gateway 2026.2 re-executed
        for a config change, or a detached extraction, is in no group of ours."""
        if self.gateway is not None and self.gateway.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.gateway.pid, signal.SIGKILL)
            self.gateway.wait(10)
        self.gateway = None
        for pid in self._stragglers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.log_entries()  # the log is still true at the end (one line per id)

    def _stragglers(self) -> list[int]:
        """The processes whose environment has this test's HOME (Linux: /proc)."""
        mark = b"\0HOME=" + os.fsencode(self.home) + b"\0"
        found = []
        for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                with open(f"/proc/{name}/environ", "rb") as fh:
                    environ = b"\0" + fh.read()
            except OSError:
                continue
            if mark in environ:
                found.append(int(name))
        return found

    # ---- zettelclaw's files

    def log_entries(self) -> list[dict]:
        """The log's entries; every read checks that no id is on two lines (an append-only
        log never repeats one: a correction is a new id)."""
        path = self.log_dir / "log.jsonl"
        if not path.exists():
            return []
        out = []
        for line in path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        ids = [e.get("id") for e in out if isinstance(e, dict)]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        assert not repeated, f"ids on more than one line of {path}: {repeated}"
        return out

    def wait_for(self, predicate, timeout: float, what: str, interval: float = 0.5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}\n"
                             f"log: {self.log_entries()}\n"
                             f"gateway log tail:\n{self._gateway_tail()}")

    def _gateway_tail(self) -> str:
        try:
            return self.gateway_log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def base_config(model_base_url: str, port: int) -> dict:
    """OpenClaw's config before zettelclaw: a fake model, local gateway, quiet background."""
    from tests.fake_openai import provider_config

    return {
        "models": {"providers": {"fake": provider_config(model_base_url)}},
        "agents": {"defaults": {"model": {"primary": "fake/fake-1"},
                                "heartbeat": {"every": "0m"}}},
        "gateway": {"mode": "local", "port": port, "bind": "loopback"},
        # tools.toolSearch stays at OpenClaw's default, as a user has it: the memory tools
        # must be in the model's tool list without turning Tool Search off
    }
