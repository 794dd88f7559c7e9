"""Files shipped beside the code: prompts, the OpenClaw plugin, the agent's skill.

In a checkout (or an editable install) they live at the repository root (``prompts/``,
``hooks/openclaw-plugin/``, ``skills/zettelclaw/``); a built wheel carries them as the
packages ``zettelclaw.prompts``, ``zettelclaw.plugin`` and ``zettelclaw.skill``.
"""

from __future__ import annotations

from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _locate(package: str, checkout: Path) -> Path:
    if checkout.is_dir():
        return checkout
    # A wheel puts the package beside this file. It has no __init__.py (a namespace package),
    # so importlib.resources.files() would hand back a MultiplexedPath whose str() is no path.
    installed = Path(__file__).resolve().parent / package.rpartition(".")[2]
    if installed.is_dir():
        return installed
    import importlib

    return Path(next(iter(importlib.import_module(package).__path__)))


def prompts_dir() -> Path:
    return _locate("zettelclaw.prompts", _ROOT / "prompts")


def prompt(name: str) -> str:
    """The text of ``prompts/<name>.md``."""
    return (prompts_dir() / f"{name}.md").read_text(encoding="utf-8")


def plugin_dir() -> Path:
    """The OpenClaw plugin folder (package.json, openclaw.plugin.json, index.js)."""
    return _locate("zettelclaw.plugin", _ROOT / "hooks" / "openclaw-plugin")


def skill_dir() -> Path:
    """The folder holding the agent's SKILL.md."""
    return _locate("zettelclaw.skill", _ROOT / "skills" / "zettelclaw")
