"""The subjects registry (design §3.1): add, list, rename (and merge), remove."""

from __future__ import annotations

import json

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log


def registry(log_dir):
    return json.loads((log_dir / "subjects.json").read_text())


def test_add_and_list(log_dir, cli):
    assert cli("subjects", "add", "auth-migration", "--type", "project").exit_code == 0
    assert cli("subjects", "add", "max", "--type", "person").exit_code == 0
    listed = cli.lines("subjects", "list", "--json")
    assert listed == [
        {"slug": "auth-migration", "display": "Auth Migration", "type": "project"},
        {"slug": "max", "display": "Max", "type": "person"},
    ]


@pytest.mark.parametrize("slug", ["Auth_Migration", "authMigration", "a/b", "x y", "lead-",
                                  "auth--x", 'q"uote', "a.*b", ""])
def test_malformed_slugs_are_usage_errors_that_change_nothing(log_dir, cli, slug):
    write_log(log_dir, DESIGN_LINES)
    before = (log_dir / "log.jsonl").read_bytes()
    for args in (["add", slug], ["rename", "auth-migration", slug], ["rename", slug, "x"]):
        result = cli("subjects", *args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith("Error: ")
    assert (log_dir / "log.jsonl").read_bytes() == before
    assert not (log_dir / "subjects.json").exists()


def test_rename_rewrites_subject_fields_only_never_content(log_dir, cli):
    lines = DESIGN_LINES + [{
        "id": "Mn1oP_2qRs3T", "timestamp": "2026-02-27T00:00:00Z", "type": "fact",
        "content": "The auth-migration doc lives in the wiki", "subject": "docs",
        "session": "x"}]
    write_log(log_dir, lines)
    cli("subjects", "add", "auth-migration")
    result = cli("subjects", "rename", "auth-migration", "auth-v2", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "6 log entries" in result.stdout
    after = [orjson.loads(ln) for ln in (log_dir / "log.jsonl").read_bytes().splitlines()]
    assert [e.get("subject") for e in after] == ["auth-v2"] * 6 + [None, "docs"]
    assert after[-1]["content"] == "The auth-migration doc lives in the wiki"
    assert "auth-migration" not in registry(log_dir) and "auth-v2" in registry(log_dir)
    assert [e["id"] for e in cli.lines("search", "--subject", "auth-v2", "--all")] == [
        e["id"] for e in DESIGN_LINES[:6]]


def test_rename_leaves_untouched_lines_byte_identical(log_dir, cli):
    raw = b'{"id": "Sp4cEd_line1", "type": "fact", "content": "hand written", "session": "s"}\n'
    path = write_log(log_dir, DESIGN_LINES[:1])
    with open(path, "ab") as fh:
        fh.write(raw)
    cli("subjects", "rename", "auth-migration", "auth", "--yes")
    assert path.read_bytes().splitlines()[1] + b"\n" == raw


def test_rename_into_an_existing_slug_merges(log_dir, cli):
    write_log(log_dir, DESIGN_LINES[:2])
    cli("subjects", "add", "auth-migration")
    cli("subjects", "add", "auth", "--type", "system", "--display", "Auth")
    assert cli("subjects", "rename", "auth-migration", "auth", "--yes").exit_code == 0
    assert registry(log_dir) == {"auth": {"display": "Auth", "type": "system"}}


def test_rename_of_unknown_subject_fails(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    result = cli("subjects", "rename", "nothing-here", "other", "--yes")
    assert result.exit_code == 1
    assert "no subject 'nothing-here'" in result.stderr


def test_remove_keeps_log_entries(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    cli("subjects", "add", "auth-migration")
    assert cli("subjects", "remove", "auth-migration", "--yes").exit_code == 0
    assert registry(log_dir) == {}
    assert len(cli.lines("search", "--subject", "auth-migration")) == 4
    assert cli("subjects", "remove", "auth-migration", "--yes").exit_code == 1


def test_write_with_a_new_subject_registers_it(log_dir, cli):
    cli("write", "fact", "Max likes tea", "--subject", "max")
    assert registry(log_dir)["max"] == {"display": "Max", "type": "project"}


# -- rename/remove as a person at a terminal meets them (issue 14) ---------------------------

def _files(log_dir):
    return {p.name: p.read_bytes() for p in log_dir.iterdir() if p.is_file()}


def test_rename_keeps_the_display_name_a_person_set(log_dir, cli):
    cli("subjects", "add", "billing-service", "--type", "system",
        "--display", "Billing Service (Stripe)")
    cli("subjects", "add", "auth-migration")  # display: the default, Title Case of the slug
    assert cli("subjects", "rename", "billing-service", "billing-svc", "--yes").exit_code == 0
    assert cli("subjects", "rename", "auth-migration", "auth-v2", "--yes").exit_code == 0
    assert registry(log_dir) == {
        "billing-svc": {"display": "Billing Service (Stripe)", "type": "system"},
        "auth-v2": {"display": "Auth V2", "type": "project"},
    }


def test_dry_run_says_what_would_change_and_changes_nothing(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    cli("subjects", "add", "auth-migration", "--display", "Auth (OAuth 2.1)")
    before = _files(log_dir)
    result = cli("subjects", "rename", "auth-migration", "auth-v2", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "6 log entries would get subject auth-v2" in result.stdout
    assert 'auth-migration {"display": "Auth (OAuth 2.1)", "type": "project"}' in result.stdout
    assert 'auth-v2 {"display": "Auth (OAuth 2.1)", "type": "project"}' in result.stdout
    result = cli("subjects", "remove", "auth-migration", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "auth-migration would be removed" in result.stdout
    assert "6 log entries keep the slug" in result.stdout
    assert _files(log_dir) == before


@pytest.mark.parametrize("args", [("rename", "auth-migration", "auth-v2"),
                                  ("remove", "auth-migration")])
def test_off_a_terminal_without_yes_is_one_error_line_and_nothing_changes(log_dir, cli, args):
    write_log(log_dir, DESIGN_LINES)
    cli("subjects", "add", "auth-migration")
    before = _files(log_dir)
    result = cli("subjects", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert "--yes" in result.stderr
    assert _files(log_dir) == before


@pytest.mark.parametrize("answer", ["n\n", "\n", ""])
def test_on_a_terminal_it_asks_and_no_is_the_default(log_dir, cli, monkeypatch, answer):
    from zettelclaw.commands import subjects as command

    monkeypatch.setattr(command, "_on_terminal", lambda: True)
    write_log(log_dir, DESIGN_LINES)
    cli("subjects", "add", "auth-migration")
    before = _files(log_dir)
    result = cli("subjects", "rename", "auth-migration", "auth-v2", input=answer)
    assert result.exit_code == 1
    assert "6 log entries would get subject auth-v2" in result.stderr
    assert "Nothing changed." in result.stderr
    assert _files(log_dir) == before


def test_on_a_terminal_yes_renames(log_dir, cli, monkeypatch):
    from zettelclaw.commands import subjects as command

    monkeypatch.setattr(command, "_on_terminal", lambda: True)
    write_log(log_dir, DESIGN_LINES)
    cli("subjects", "add", "auth-migration")
    result = cli("subjects", "rename", "auth-migration", "auth-v2", input="y\n")
    assert result.exit_code == 0, result.stderr
    assert "Renamed auth-migration -> auth-v2 (6 log entries changed)" in result.stdout
    assert list(registry(log_dir)) == ["auth-v2"]
    result = cli("subjects", "remove", "auth-v2", input="y\n")
    assert result.exit_code == 0 and registry(log_dir) == {}


def test_subjects_alone_lists_them(log_dir, cli):
    cli("subjects", "add", "max", "--type", "person")
    assert cli.lines("subjects") == [{"slug": "max", "display": "Max", "type": "person"}]


def test_a_write_about_known_subjects_leaves_state_json_unread(log_dir, cli, monkeypatch):
    # the agent writes on its turns: a big state.json must not slow them down
    cli("write", "fact", "Max likes tea", "--subject", "max")
    cli("subjects", "rename", "max", "max-power", "--yes")
    from zettelclaw import state

    loads: list[str] = []
    real = state.State.load.__func__
    monkeypatch.setattr(state.State, "load",
                        classmethod(lambda cls: loads.append("load") or real(cls)))
    opened: list[str] = []
    real_read = __import__("zettelclaw.subjects", fromlist=["read_bytes"]).read_bytes

    def spy(path, **kw):
        opened.append(str(path))
        return real_read(path, **kw)

    monkeypatch.setattr("zettelclaw.subjects.read_bytes", spy)

    assert cli("write", "fact", "Max likes green tea", "--subject", "max-power").exit_code == 0
    assert not any(p.endswith("state.json") for p in opened) and loads == []
    # a write naming the old slug still lands on the new one (the renames are read then)
    assert cli("write", "fact", "Max likes mint tea", "--subject", "max").exit_code == 0
    assert any(p.endswith("state.json") for p in opened)
    lines = [orjson.loads(x) for x in (log_dir / "log.jsonl").read_bytes().splitlines()]
    assert [e["subject"] for e in lines[-2:]] == ["max-power", "max-power"]
