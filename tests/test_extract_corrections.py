"""Extraction meets the correction rules: one current version per chain, corrections that keep
their subject and status, an older conversation that cannot overwrite a newer one, and the same
thing stored once (issue 10, points 3 and 7)."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.test_corrections import _entry
from tests.test_extract import read_log
from zettelclaw.extract import build_entries
from zettelclaw.resolve import Resolution

SID_1 = "11111111-2222-4333-8444-555555555555"
SID_2 = "66666666-7777-4888-9999-aaaaaaaaaaaa"


def _session(home, sid, text, day):
    start = datetime(2026, 11, day, 9, 0, tzinfo=timezone.utc)
    home.jsonl_session("main", sid, [("user", text), ("assistant", "Noted.")],
                       key="agent:main:main", start=start)


def test_the_same_fact_restated_in_a_second_session_is_stored_once(cli, home, fake_anthropic,
                                                                   log_dir):
    fact = {"type": "fact", "content": "Max owns the canary deploy", "subject": "max"}
    # (each extracted while the main session's key is still its: a transcript whose key is
    # gone, and was never recorded, is not known to be the owner's)
    _session(home, SID_1, "Max owns the canary.", 20)
    fake_anthropic.entries(fact, {"type": "handoff", "content": "Canary is Max's"})
    assert "appended 2 entries from" in cli("extract", "--session-id", SID_1).stderr
    _session(home, SID_2, "Remember, Max owns the canary.", 21)
    fake_anthropic.entries({**fact, "content": "max owns the canary deploy."},
                           {**fact, "content": "Max owns the canary deploy"},
                           {"type": "task", "content": "Ask Max for a date"},
                           {"type": "task", "content": "Ask Max for a date."},
                           {"type": "handoff", "content": "Canary is Max's"})
    result = cli("extract", "--session-id", SID_2)
    assert result.exit_code == 0, result.stderr
    assert "appended 2 entries (3 duplicates dropped) from" in result.stderr
    entries = read_log(log_dir)
    assert [e["type"] for e in entries] == ["fact", "handoff", "task", "handoff"]


def _log(*entries):
    return Resolution.build(entries)


def test_a_model_correction_of_an_old_id_corrects_the_current_head_and_inherits():
    old = _entry("taskOld00001", "task", "Backfill", status="open", subject="auth")
    head = _entry("taskHead0001", "task", "Backfill 47 jobs", status="open", subject="auth",
                  replaces="taskOld00001")
    resolution = _log(old, head)
    items = [{"type": "task", "content": "Backfill 47 jobs", "status": "done",
              "replaces": "taskOld00001"},
             {"type": "task", "content": "Backfill 47 jobs (all)", "replaces": "taskOld00001"}]
    made, warnings, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    assert made[0]["replaces"] == "taskHead0001" and made[0]["subject"] == "auth"
    assert made[1]["replaces"] == made[0]["id"]  # the batch's own correction is the head now
    assert made[1]["status"] == "done" and made[1]["subject"] == "auth"
    assert any("already replaced" in w and "taskHead0001" in w for w in warnings)


def test_an_older_conversation_swept_late_does_not_overwrite_newer_truth():
    old = _entry("factOld00001", "fact", "Retries: 3", subject="auth")
    newer = _entry("factNew00001", "fact", "Retries: 5", stamp="2026-01-18T10:00:00Z",
                   replaces="factOld00001", subject="auth")
    resolution = _log(old, newer)
    items = [{"type": "fact", "content": "Retries: 4", "replaces": "factOld00001"}]
    made, warnings, _ = build_entries(items, "jan16", known_ids=set(resolution.by_id),
                                      timestamp="2026-01-16T10:00:00Z", resolution=resolution)
    assert "replaces" not in made[0] and made[0]["subject"] == "auth"
    assert any("after this conversation" in w for w in warnings)
    later, _, _ = build_entries(items, "jan19", known_ids=set(resolution.by_id),
                                timestamp="2026-01-19T10:00:00Z", resolution=resolution)
    assert later[0]["replaces"] == "factNew00001"


# -- a correction never closes a look-alike (issue 22) ------------------------------------------


def _tasks(*contents, stamp="2026-01-10T10:00:00Z"):
    return [_entry(f"task{n:08d}", "task", content, stamp, status="open", subject="atlas")
            for n, content in enumerate(contents)]


def test_a_done_that_names_a_different_thing_does_not_close_the_look_alike_task():
    # two months ago: the task; last week: another task of the subject, on other things.
    # The model was shown only the newer one and closes it for want of the right one.
    target, look_alike = _tasks("We need to clean up the invoice templates for Atlas.",
                                "We need to migrate the test fixtures for Atlas.")
    target["timestamp"] = "2025-11-10T10:00:00Z"
    resolution = _log(target, look_alike)
    items = [{"type": "task", "status": "done", "replaces": look_alike["id"],
              "content": "Cleaning up the invoice templates for Atlas is done."}]
    made, warnings, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                                      shown={look_alike["id"]},
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    assert "replaces" not in made[0] and made[0]["status"] == "done"  # kept, as a new entry
    assert made[0]["may_replace"] == [target["id"], look_alike["id"]]  # asked: both, in order
    assert any(f"dropped replaces={look_alike['id']}: {target['id']}, not shown to the model, "
               "names what it says more closely" in w for w in warnings)


def test_a_short_done_closes_the_task_it_names_beside_other_tasks_sharing_a_word():
    # what a real model writes: a short sentence, fewer words than the task; other open
    # tasks, not shown, share a word with it but not every word the task shares
    task, *others = _tasks("Migrate the auth service to Okta before the audit",
                           "Document the Okta tenant settings",
                           "Ask Max about the auth audit findings")
    resolution = _log(task, *others)
    items = [{"type": "task", "status": "done", "replaces": task["id"],
              "content": "The Okta migration task is done"}]
    made, warnings, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                                      shown={task["id"]},
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    assert made[0]["replaces"] == task["id"] and warnings == []


def test_a_done_naming_one_of_two_look_alikes_shown_is_kept_apart_for_review():
    # issue 31: the model was shown both and named the one that says it less; nothing tells
    # which was meant (no subject of its own, none named): no silent close
    named, closer = _tasks("We need to update the permission model for Atlas.",
                           "We need to back up the permission model for Atlas.")
    resolution = _log(named, closer)
    items = [{"type": "task", "status": "done", "replaces": named["id"],
              "content": "Backing up the permission model is done."}]
    made, warnings, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                                      shown={named["id"], closer["id"]},
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    # the person is asked about both: the one that says it better first, then the one named
    assert "replaces" not in made[0] and made[0]["may_replace"] == [closer["id"], named["id"]]
    assert any(f"{closer['id']} name what it says more closely" in w
               and "zettelclaw review" in w for w in warnings)


def test_the_subject_decides_between_look_alikes_of_different_subjects():
    atlas, orion = _tasks("We need to renew the nightly cron job for Atlas.",
                          "We need to renew the nightly cron job for Orion.")
    orion["subject"] = "orion"
    resolution = _log(atlas, orion)
    items = [{"type": "task", "status": "done", "replaces": atlas["id"], "subject": "orion",
              "content": "Renewing the nightly cron job is done."}]
    made, warnings, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                                      shown={atlas["id"], orion["id"]},
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    assert made[0]["replaces"] == orion["id"] and "may_replace" not in made[0]
    assert any("linked that one instead" in w for w in warnings)
    # the subjects the conversation names, when the entry names none
    items[0].pop("subject")
    made, _, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                               shown={atlas["id"], orion["id"]}, touched={"atlas"},
                               timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    assert made[0]["replaces"] == atlas["id"]


def test_the_same_words_kept_apart_from_two_different_tasks_are_both_asked_about():
    from zettelclaw.corrections import Current

    a1, a2, b1, b2 = _tasks("We need to test the webhook handlers for Atlas.",
                            "We need to test the webhook handlers for Atlas today.",
                            "We need to test the webhook handlers for Atlas soon.",
                            "We need to test the webhook handlers for Atlas later.")
    resolution = _log(a1, a2, b1, b2)
    made = []
    for target in (a1, b1):
        items = [{"type": "task", "status": "done", "replaces": target["id"],
                  "content": "Testing the webhook handlers is done."}]
        made += build_entries(items, "s2", known_ids=set(resolution.by_id),
                              shown={e["id"] for e in (a1, a2, b1, b2)},
                              timestamp="2026-01-12T10:00:00Z", resolution=resolution)[0]
    # each asked about all four, the one the model named first
    assert [m["may_replace"][0] for m in made] == [a1["id"], b1["id"]]
    assert all(set(m["may_replace"]) == {a1["id"], a2["id"], b1["id"], b2["id"]} for m in made)
    kept, dropped = Current(resolution).take(made)
    assert dropped == 0 and [k["may_replace"][0] for k in kept] == [a1["id"], b1["id"]]


def test_the_same_done_kept_apart_in_two_conversations_is_asked_about_twice():
    # "Testing the webhook handlers is done", said in March and again in May, each time among
    # the same look-alikes: two tasks done, not one said twice. Said twice in one
    # conversation, it is one
    from zettelclaw.corrections import Current

    tasks = _tasks("We need to test the webhook handlers for Atlas.",
                   "We need to test the webhook handlers for Orion.")
    resolution = _log(*tasks)
    items = [{"type": "task", "status": "done", "replaces": tasks[0]["id"],
              "content": "Testing the webhook handlers is done."}]

    def said(session):
        return build_entries(items, session, known_ids=set(resolution.by_id),
                             shown={t["id"] for t in tasks},
                             timestamp="2026-01-12T10:00:00Z", resolution=resolution)[0]

    current = Current(resolution)
    march, _ = current.take(said("march"))
    may, dropped = current.take(said("may"))
    assert len(march) == len(may) == 1 and dropped == 0
    assert march[0]["may_replace"] == may[0]["may_replace"] == [t["id"] for t in tasks]
    again, dropped = current.take(said("may"))
    assert again == [] and dropped == 1


def _link(resolution, content, target, shown, subject=None, touched=()):
    item = {"type": "task", "status": "done", "replaces": target["id"], "content": content}
    if subject:
        item["subject"] = subject
    made, warnings, _ = build_entries([item], "s2", known_ids=set(resolution.by_id),
                                      shown={e["id"] for e in shown}, touched=set(touched),
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    return made[0], warnings


def test_a_done_naming_its_project_closes_the_task_said_without_one():
    # the task was said without its project; the done names it. Another project's task says
    # the same words (the model, counting words, named that one), and the project has other
    # tasks sharing its verb and its name: the one said without a project is the one left
    bare, other, same_project = _tasks("We need to rotate the access keys.",
                                       "We need to rotate the access keys for Orion.",
                                       "We need to rotate the signup form for Atlas Migration.")
    bare["subject"], other["subject"], same_project["subject"] = None, "orion", "atlas-migration"
    resolution = _log(bare, other, same_project)
    made, warnings = _link(resolution, "Rotating the access keys for Atlas Migration is done.",
                           other, (bare, other, same_project), subject="atlas-migration")
    assert made["replaces"] == bare["id"] and "may_replace" not in made


def test_a_done_said_elsewhere_between_two_projects_look_alikes_is_asked_about():
    # "Updating the login page is done", said in a conversation about a third project:
    # one task of Orion's and one said without a project say it alike. Nothing says which
    atlas, orion = _tasks("We need to update the login page.",
                          "We need to update the login page for Orion.")
    atlas["subject"] = None
    orion["subject"] = "orion"
    resolution = _log(atlas, orion)
    made, warnings = _link(resolution, "Updating the login page is done.", atlas,
                           (atlas, orion), touched={"kestrel"})
    assert "replaces" not in made and made["may_replace"] == [atlas["id"], orion["id"]]
    assert any("1 other task in memory says it as well" in w for w in warnings)
    # said in a conversation about Orion: Orion's, not the one filed under no project
    made, _ = _link(resolution, "Updating the login page is done.", atlas, (atlas, orion),
                    touched={"orion"})
    assert made["replaces"] == orion["id"]


def test_a_project_named_like_the_work_does_not_hide_what_the_done_says():
    # "Lumen Migration": the project's name holds the verb of one of its tasks
    migrate, review = _tasks("We need to migrate the webhook handlers for Lumen Migration.",
                             "We need to review the webhook handlers for Lumen Migration.")
    migrate["subject"] = review["subject"] = "lumen-migration"
    resolution = _log(migrate, review)
    made, warnings = _link(resolution, "Migrating the webhook handlers for Lumen Migration is "
                           "done.", migrate, (migrate, review), subject="lumen-migration")
    assert made["replaces"] == migrate["id"] and "may_replace" not in made


def test_a_done_naming_the_one_task_shown_is_asked_about_when_memory_holds_its_twin():
    # the model was shown one "update the login page" (the conversation's words found it) and
    # closed it; memory holds another project's, said the same way, that nothing rules out:
    # what was shown does not make a guess sure
    shown, twin = _tasks("We need to update the login page for Orion.",
                         "We need to update the login page for Atlas.")
    shown["subject"], twin["subject"] = "orion", "atlas"
    resolution = _log(shown, twin)
    items = [{"type": "task", "status": "done", "replaces": shown["id"],
              "content": "Updating the login page is done."}]
    made, warnings, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                                      shown={shown["id"]}, pool={shown["id"], twin["id"]},
                                      timestamp="2026-01-12T10:00:00Z", resolution=resolution)
    assert "replaces" not in made[0] and made[0]["may_replace"] == [shown["id"], twin["id"]]
    assert any("1 other task in memory says it as well" in w for w in warnings)
    # the conversation names Orion: the one it names is closed
    made, _, _ = build_entries(items, "s2", known_ids=set(resolution.by_id),
                               shown={shown["id"]}, pool={shown["id"], twin["id"]},
                               touched={"orion"}, timestamp="2026-01-12T10:00:00Z",
                               resolution=resolution)
    assert made[0]["replaces"] == shown["id"]
