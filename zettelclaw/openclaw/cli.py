"""The ``openclaw`` executable: found, run with a time limit, and asked what its version can do."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess

from ..errors import UsageError, ZettelclawError

CLI_TIMEOUT = 180.0


class OpenClawError(ZettelclawError):
    """An ``openclaw`` command failed."""


def _parse_version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"(\d{4})\.(\d+)\.(\d+)", text)
    return tuple(int(x) for x in match.groups()) if match else None


class OpenClawCLI:
    """The ``openclaw`` executable: runs it and knows what its version can do."""

    def __init__(self, path: str, env: dict[str, str] | None = None):
        self.path = path
        self.env = env
        self._version: tuple[int, ...] | None = None

    @classmethod
    def find(cls, explicit: str | None = None) -> OpenClawCLI | None:
        """``explicit`` (``--openclaw``), else ``$OPENCLAW_BIN``, else ``openclaw`` on PATH."""
        for candidate, source in ((explicit, "--openclaw"),
                                  (os.environ.get("OPENCLAW_BIN"), "OPENCLAW_BIN")):
            if candidate:
                found = shutil.which(os.path.expanduser(candidate))
                if not found:
                    raise UsageError(f"{source}: {candidate} is not an executable")
                return cls(found)
        found = shutil.which("openclaw")
        return cls(found) if found else None

    def run(self, *args: str, check: bool = True, timeout: float = CLI_TIMEOUT,
            input: str | None = None) -> subprocess.CompletedProcess:
        try:
            proc = subprocess.run([self.path, *args], capture_output=True, text=True,
                                  timeout=timeout, input=input, env=self.env,
                                  stdin=None if input is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise OpenClawError(
                f"`openclaw {_join(args)}` did not finish in {timeout:.0f}s") from None
        except OSError as exc:
            raise OpenClawError(f"cannot run {self.path}: {exc}") from None
        if check and proc.returncode != 0:
            raise OpenClawError(f"`openclaw {_join(args)}` failed: {_tail(proc)}")
        return proc

    @property
    def version(self) -> tuple[int, ...]:
        if self._version is None:
            proc = self.run("--version", timeout=60)
            version = _parse_version(proc.stdout)
            if version is None:
                raise OpenClawError(f"cannot read a version from `openclaw --version`: "
                                    f"{proc.stdout.strip()!r}")
            self._version = version
        return self._version

    @property
    def version_text(self) -> str:
        return ".".join(str(x) for x in self.version)

    @property
    def modern(self) -> bool:
        """2026.9 and later: conversation-access gate, command cron jobs, batch config set."""
        return self.version >= (2026, 9)


def _join(args) -> str:
    return " ".join(shlex.quote(a) for a in args)


def _tail(proc: subprocess.CompletedProcess) -> str:
    text = "\n".join(x for x in (proc.stderr.strip(), proc.stdout.strip()) if x)
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("    at ")]
    return " | ".join(lines[-3:]) or f"exit code {proc.returncode}"
