"""This machine and this install: its timezone, this zettelclaw's executable, and the plugin and
skill files it ships (or a working copy's)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def local_timezone() -> str:
    """The machine's IANA zone name (``$TZ``, /etc/timezone, /etc/localtime), else UTC."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if "/" in tz and not tz.startswith("/"):
        return tz
    try:
        text = Path("/etc/timezone").read_text().strip()
        if text:
            return text
    except OSError:
        pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    except OSError:
        pass
    return "UTC"


def zettelclaw_executable() -> str:
    """The absolute path of this zettelclaw, for cron jobs run without our PATH."""
    beside = Path(sys.executable).parent / "zettelclaw"
    if beside.exists():
        return str(beside)
    found = shutil.which("zettelclaw")
    if found:
        return os.path.abspath(found)
    argv0 = Path(sys.argv[0])
    if argv0.name == "zettelclaw" and argv0.exists():
        return str(argv0.resolve())
    return "zettelclaw"


def _plugin_dir() -> Path:
    """The plugin folder to link (``$ZETTELCLAW_PLUGIN_DIR`` for a working copy)."""
    env = os.environ.get("ZETTELCLAW_PLUGIN_DIR")
    if env:
        return Path(env).expanduser().absolute()
    from ..resources import plugin_dir

    return plugin_dir()


def _skill_src() -> Path:
    """The SKILL.md to install (``$ZETTELCLAW_SKILL_DIR`` for a working copy)."""
    env = os.environ.get("ZETTELCLAW_SKILL_DIR")
    if env:
        return Path(env).expanduser().absolute() / "SKILL.md"
    from ..resources import skill_dir

    return skill_dir() / "SKILL.md"
