"""Whose session a key is, read exactly as OpenClaw writes keys (issue 39, point 4).

The rows of tests/data/openclaw-session-keys.json are what OpenClaw's own key builder
(``buildAgentPeerSessionKey``, ``resolveThreadSessionKeys``) makes for a sender on a channel
under each ``dmScope``, with ``identityLinks``, per OpenClaw version: every row's key must be
the row's person. The keys are committed (the table runs from a clean clone); when the e2e
toolchain is in its cache, :func:`test_the_fixture_is_what_openclaw_builds` runs the real
builder again and checks the committed keys are still its keys.

``python tests/test_session_keys.py --write`` rewrites the keys from the cached toolchain.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "data" / "openclaw-session-keys.json"
SCRIPT = REPO / "tests" / "openclaw_session_keys.mjs"
VERSIONS = ("2026.9.6", "2026.2.22")
CACHE = Path(os.environ.get("ZETTELCLAW_E2E_CACHE") or Path(
    os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "zettelclaw-e2e")


def _cases() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def _rows():
    for case in _cases():
        for version, key in case["keys"].items():
            yield pytest.param(case, version, key, id=f"{version}: {case['name']}")


@pytest.mark.parametrize("case, version, key", list(_rows()))
def test_whose_session_openclaws_key_is(case, version, key):
    from zettelclaw.people import person_of_key

    assert person_of_key(key, case["config"]) == case["person"], (version, key)


def test_the_table_covers_every_shape_openclaw_builds():
    """main, per-peer, per-channel-peer, per-account-channel-peer (accounts dm and direct),
    groups, channels, threads, Matrix ids with colons, link names with colons, ownerAllowFrom
    ids with a channel prefix: each is a row."""
    cases = _cases()
    scopes = {c["build"].get("dmScope") for c in cases if c["build"]["peerKind"] == "direct"}
    assert scopes == {"main", "per-peer", "per-channel-peer", "per-account-channel-peer"}
    assert {c["build"]["peerKind"] for c in cases} == {"direct", "group", "channel"}
    assert {c["build"].get("accountId") for c in cases} >= {"dm", "direct"}
    assert any(c.get("thread") and c["build"]["peerKind"] == "direct" for c in cases)
    assert any(c.get("thread") and c["build"]["peerKind"] == "channel" for c in cases)
    assert any(":" in c["build"]["peerId"] and c["build"]["channel"] == "matrix" for c in cases)
    assert any(":" in name for c in cases for name in c["build"].get("identityLinks", {}))
    owners = [o for c in cases for o in c["config"].get("commands", {}).get("ownerAllowFrom", [])]
    assert any(o.startswith("matrix:") for o in owners) and any(o.startswith("imsg:")
                                                                 for o in owners)


def _node() -> Path | None:
    for candidate in sorted(CACHE.glob("node-*/node_modules/.bin/node"), reverse=True):
        if candidate.exists():
            return candidate
    return None


def _package(version: str) -> Path | None:
    package = CACHE / f"openclaw-{version}" / "node_modules" / "openclaw"
    return package if (CACHE / f"openclaw-{version}" / ".complete").exists() else None


def _built(version: str, cases: list[dict]) -> list[str]:
    proc = subprocess.run([str(_node()), str(SCRIPT), str(_package(version))],
                          input=json.dumps(cases), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_fixture_is_what_openclaw_builds(version):
    if _node() is None or _package(version) is None:
        pytest.skip(f"OpenClaw {version} is not in the e2e cache (make e2e-toolchain)")
    cases = _cases()
    assert _built(version, cases) == [c["keys"][version] for c in cases]


@pytest.mark.parametrize("version", ("2026.9.6",))
def test_every_channel_openclaw_bundles_is_a_channel_here(version):
    """An ``ownerAllowFrom`` id ``<channel>:<id>`` is that channel's only when the prefix is a
    channel OpenClaw knows: zettelclaw's list holds every channel (and alias) it bundles."""
    from zettelclaw.people import CHANNEL_ALIASES, CHANNELS

    package = _package(version)
    if package is None:
        pytest.skip(f"OpenClaw {version} is not in the e2e cache (make e2e-toolchain)")
    for path in sorted((package / "dist").glob("ids-*.mjs")):
        source = path.read_text(encoding="utf-8")
        if "GENERATED_BUNDLED_CHANNEL_IDS = [" in source:
            break
    else:
        pytest.fail("no bundled channel ids in OpenClaw's dist")
    table = source.split("GENERATED_BUNDLED_CHANNEL_IDS = [", 1)[1].split("];", 1)[0]
    ids = set(re.findall(r'channelId: "([^"]+)"', table))
    aliases = {a for found in re.findall(r"aliases: \[([^\]]*)\]", table)
               for a in re.findall(r'"([^"]+)"', found)}
    assert ids and ids <= CHANNELS
    assert aliases <= set(CHANNEL_ALIASES)


def _write() -> None:
    cases = _cases()
    for version in VERSIONS:
        if _node() is None or _package(version) is None:
            raise SystemExit(f"OpenClaw {version} is not in {CACHE}")
        for case, key in zip(cases, _built(version, cases), strict=True):
            case.setdefault("keys", {})[version] = key
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    data["cases"] = cases
    FIXTURE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    _write()
