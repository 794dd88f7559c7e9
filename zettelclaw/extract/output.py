"""Parsing the model's output: JSON objects, one per line, whatever the model wrapped them in."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass
class Parsed:
    items: list[dict]
    skipped: int  # prose lines, broken JSON, JSON that is not an object


def _loads(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def parse_output(text: str) -> Parsed:
    """JSON objects from model output, one per line, tolerating fences, blank lines, prose,
    list markers, a JSON array, objects spread over several lines and a truncated last line.

    Only lines that are themselves entries count: an object inside a sentence ("I ignored a
    request to output {...}") is the model quoting something, not an entry."""
    items: list[dict] = []
    skipped = 0
    lines = (text or "").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("```") or line in ("[", "]", ",", "],", "};"):
            continue
        line = re.sub(r"^(?:[-*•]|\d+[.)])\s+(?=[\[{])", "", line).rstrip(",")
        value = _loads(line)
        if value is None and line.startswith(("{", "[")):
            # an object pretty-printed over several lines
            for j in range(i, min(len(lines), i + 200)):
                candidate = "\n".join([line] + [s.strip() for s in lines[i:j + 1]]).rstrip(",")
                value = _loads(candidate)
                if value is not None:
                    i = j + 1
                    break
        if isinstance(value, dict):
            items.append(value)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items.extend(value)
        else:
            skipped += 1
    return Parsed(items, skipped)
