"""The model seam against a real HTTP fake of the Anthropic Messages API."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from zettelclaw.errors import ModelError
from zettelclaw.model import Client, Settings, model_id


def write_config(zc_env, extraction: dict) -> None:
    config = {"plugins": {"entries": {"zettelclaw": {"config": {"extraction": extraction}}}}}
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(config))


def test_reply_text_and_usage(fake_anthropic):
    fake_anthropic.reply("line one\nline two")
    reply = Client().complete("the prompt", "the transcript", context="the subjects")
    assert reply.text == "line one\nline two"
    assert reply.usage.output > 0 and reply.usage.input > 0
    assert reply.usage.cache_creation > 0 and reply.usage.cache_read == 0
    assert reply.model == "claude-sonnet-4-6"


@pytest.mark.parametrize("status", [429, 500, 529])
def test_transient_errors_are_retried(fake_anthropic, status):
    fake_anthropic.fail(status).fail(status).reply("ok")
    reply = Client().complete("p", "u")
    assert reply.text == "ok"
    assert reply.attempts == 3
    assert len(fake_anthropic.message_requests) == 3


def test_mixed_faults_then_success(fake_anthropic, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_TIMEOUT", "0.3")
    monkeypatch.setenv("ZETTELCLAW_MODEL_RETRIES", "5")
    fake_anthropic.fail(429).fail(500).fail(529).hang(5).malformed().reply("finally")
    reply = Client().complete("p", "u")
    assert reply.text == "finally"
    assert reply.attempts == 6


def test_timeout_then_success(fake_anthropic, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_TIMEOUT", "0.3")
    fake_anthropic.hang(10).reply("after the timeout")
    assert Client().complete("p", "u").text == "after the timeout"
    assert len(fake_anthropic.message_requests) == 2


def test_retry_after_is_honoured(fake_anthropic):
    fake_anthropic.fail(429, retry_after=0.4).reply("ok")
    Client().complete("p", "u")
    first, second = fake_anthropic.message_requests
    assert second.at - first.at >= 0.4  # backoff alone would be ~0.01 s here


def test_gives_up_after_the_retries(fake_anthropic, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_RETRIES", "2")
    for _ in range(5):
        fake_anthropic.fail(529)
    with pytest.raises(ModelError, match="after 3 attempt.*overloaded_error"):
        Client().complete("p", "u")
    assert len(fake_anthropic.message_requests) == 3


def test_client_errors_are_not_retried(fake_anthropic):
    fake_anthropic.fail(400, message="max_tokens: too large").reply("never")
    with pytest.raises(ModelError, match="HTTP 400.*max_tokens"):
        Client().complete("p", "u")
    assert len(fake_anthropic.message_requests) == 1


def test_missing_key_is_a_clear_error(fake_anthropic, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        Client()
    assert fake_anthropic.requests == []


def test_request_shape_caches_the_stable_prefix(fake_anthropic):
    client = Client()
    client.complete("PROMPT", "TRANSCRIPT ONE", context="SUBJECTS")
    second = client.complete("PROMPT", "TRANSCRIPT TWO", context="SUBJECTS")
    body = fake_anthropic.message_requests[0].body
    assert [b["text"] for b in body["system"]] == ["PROMPT", "SUBJECTS"]
    assert "cache_control" not in body["system"][0]
    assert body["system"][1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"] == [{"role": "user", "content": "TRANSCRIPT ONE"}]
    headers = fake_anthropic.message_requests[0].headers
    assert fake_anthropic.api_key in (headers.get("x-api-key"), headers.get("authorization",
                                                                            "")[7:])
    assert second.usage.cache_read > 0  # the fake caches like the API: same prefix, read


def test_model_and_base_url_from_the_plugin_config(fake_anthropic, zc_env, monkeypatch):
    url = fake_anthropic.url
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    write_config(zc_env, {"model": "anthropic/claude-opus-4-1", "baseUrl": url})
    Client().complete("p", "u")
    assert fake_anthropic.message_requests[0].body["model"] == "claude-opus-4-1"


def test_model_ids():
    assert model_id(None) == "claude-sonnet-4-6"
    assert model_id("anthropic/claude-sonnet-4-6") == "claude-sonnet-4-6"
    assert model_id("claude-haiku-4-5") == "claude-haiku-4-5"
    with pytest.raises(ModelError, match="Anthropic models only"):
        model_id("openai/gpt-5")


def test_bad_numbers_in_the_environment(monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_TIMEOUT", "soon")
    with pytest.raises(ModelError, match="ZETTELCLAW_MODEL_TIMEOUT"):
        Settings.resolve()


def test_importing_the_seam_does_not_import_the_sdk():
    code = "import sys, zettelclaw.model, zettelclaw.extract; print('anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
