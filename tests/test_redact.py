"""Secrets never reach the log: every stored string passes through redact()."""

from __future__ import annotations

import pytest

from zettelclaw.redact import REDACTED, contains_secret, redact

PEM = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDJ3kq1nX5v3c0y2aSx9w8fR0mJmJb0bq5x2jv0n5uZ4wAAAJgmF6mQJheq
-----END OPENSSH PRIVATE KEY-----"""

SECRETS = [
    "sk-ant-api03-Xk2mN8pQ4rT6vW9yB1cD3fG5hJ7kL0zA-QwErTyUiOp_AsDfGhJkLzXcVbNm1234",
    "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "sk-1234567890abcdefABCDEF1234567890",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_token_shapes_are_redacted(secret):
    text = f"The key is {secret} — keep it safe."
    out = redact(text)
    assert secret not in out
    assert REDACTED in out
    assert out.startswith("The key is ") and out.endswith(" — keep it safe.")


def test_bearer_token_keeps_the_scheme():
    out = redact("curl -H 'Authorization: Bearer abc123DEF456ghi789JKL' https://api.example")
    assert out == "curl -H 'Authorization: Bearer [redacted]' https://api.example"


def test_private_key_block_is_removed_whole():
    out = redact(f"here:\n{PEM}\nthanks")
    assert out == "here:\n[redacted]\nthanks"


def test_unterminated_private_key_block_is_removed_to_the_end():
    out = redact("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7")
    assert "MIIE" not in out and out == REDACTED


def test_password_in_urls_and_assignments():
    assert redact("postgres://app:hunter2secret@db.internal:5432/app") == \
        "postgres://app:[redacted]@db.internal:5432/app"
    assert redact("https://x.io/login?user=max&password=s3cr3tpass&next=/") == \
        "https://x.io/login?user=max&password=[redacted]&next=/"
    assert redact("api_key: 9f8e7d6c5b4a") == "api_key: [redacted]"


def test_aws_secret_access_key():
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert secret not in redact(f"aws_secret_access_key = {secret}")
    assert secret not in redact(f"my AWS secret is {secret}")
    assert secret not in redact(f"AKIAIOSFODNN7EXAMPLE / {secret}")


@pytest.mark.parametrize("text", [
    "We chose Postgres over MySQL for the auth migration.",
    "Ask Max about the sk-ant prefix convention",  # talking about keys is fine
    "Backoff intervals are 2s, 10s, 30s; the task id is a3k9x_BmQ2yT",
    "Use a bearer token for the webhook (stored in 1Password)",
    "The password policy needs 12 characters",
])
def test_ordinary_text_is_untouched(text):
    assert redact(text) == text
    assert not contains_secret(text)


def test_non_strings_pass_through():
    assert redact("") == ""
    assert redact(None) is None
