"""OpenClaw's config as data: read fresh from its JSON5 file, dotted paths into it, and the
small JSON records (init's undo record, exec approvals) read beside it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .. import paths

_MISSING: Any = object()


def dig(data: Any, dotted: str) -> Any:
    for key in _split(dotted):
        if not isinstance(data, dict) or key not in data:
            return _MISSING
        data = data[key]
    return data


def _split(dotted: str) -> list[str]:
    return dotted.split(".")


def _put(data: dict, dotted: str, value: Any) -> None:
    keys = _split(dotted)
    for key in keys[:-1]:
        child = data.get(key)
        if not isinstance(child, dict):
            child = data[key] = {}
        data = child
    if value is _MISSING:
        data.pop(keys[-1], None)
    else:
        data[keys[-1]] = value


def _read_config() -> dict:
    paths._config_cache.clear()  # always the file as it is now
    return paths.load_openclaw_config()


def _tilde(path: Path) -> str:
    home = str(paths.home_dir())
    text = str(path)
    return "~" + text[len(home):] if text == home or text.startswith(home + os.sep) else text


def _flatten(prefix: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        out: list[tuple[str, Any]] = []
        for key, child in value.items():
            out.extend(_flatten(f"{prefix}.{key}", child))
        return out
    return [(prefix, value)]


def _load_record(path: Path) -> dict:
    from ..errors import ZettelclawError
    from ..fsutil import read_bytes

    try:
        data = json.loads((read_bytes(path, follow=True) or b"").decode("utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, ZettelclawError):
        return {}
