"""The redaction corpus: secret shapes that must never be stored, and look-alikes that are not
secrets (prose about passwords, hashes, UUIDs, commit ids, placeholders...).

Every secret is fake but valid-shaped. The random parts are generated here from a fixed seed and
the provider prefixes are joined in code, so no key-shaped literal sits in the repository (and
nothing trips a push-protection scanner). ``SECRETS`` holds ``(name, text, value)``: ``value``,
the part that must not survive, appears in ``text``. ``LOOKALIKES`` holds ``(name, text)``.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid

_rng = random.Random(11)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def _r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _j(*parts: str) -> str:
    return "".join(parts)


def _jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"svc-42","role":"service_role"}').decode()
    return f"{head}.{body.rstrip('=')}.{_r(43, URLSAFE)}"


def _pem(kind: str) -> str:
    lines = "\n".join(_r(64, B64) for _ in range(4))
    return _j("-----BEGIN ", kind, "PRIVATE KEY-----\n", lines, "\n-----END ", kind,
              "PRIVATE KEY-----")


_aws_secret = _r(40, B64)
_pw = _j("Tr0ub4dor", "&3x!", _r(4))
_slash_pw = _j("pa/ss", _r(6), "/w0rd")

# (name, text, secret value)
SECRETS: list[tuple[str, str, str]] = []


def _s(name: str, template: str, value: str) -> None:
    SECRETS.append((name, template.replace("{}", value), value))


_s("anthropic", "Use {} for the staging agent.", _j("sk-", "ant-api03-", _r(93, URLSAFE), "AA"))
_s("anthropic admin", "admin key {}", _j("sk-", "ant-admin01-", _r(93, URLSAFE), "AA"))
_s("openai project", "OPENAI key is {}", _j("sk-", "proj-", _r(48, URLSAFE)))
_s("openai legacy", "old key {} still works", _j("sk-", _r(20), "T3Blbk", "FJ", _r(20)))
_s("openai svcacct", "service account {}", _j("sk-", "svcacct-", _r(56, URLSAFE)))
_s("aws access key id", "the access key is {} for prod", _j("AK", "IA", _r(16, string.ascii_uppercase + "234567")))
_s("aws temp key id", "temporary creds {} expire", _j("AS", "IA", _r(16, string.ascii_uppercase + "234567")))
_s("aws secret assignment", "aws_secret_access_key = {}", _aws_secret)
_s("aws secret env", "export AWS_SECRET_ACCESS_KEY={}", _r(40, B64))
_s("aws secret prose", "and the AWS secret is {} (rotate it)", _r(40, B64))
_s("github classic", "pushed with {}", _j("gh", "p_", _r(36)))
_s("github oauth", "oauth token {}", _j("gh", "o_", _r(36)))
_s("github app", "installation token {}", _j("gh", "s_", _r(36)))
_s("github fine-grained", "PAT: {}", _j("github", "_pat_", _r(22), "_", _r(59)))
_s("gitlab", "GitLab token {} for CI", _j("gl", "pat-", _r(20, URLSAFE)))
_s("slack bot", "slack bot token {}", _j("xo", "xb-", _r(12, string.digits), "-", _r(13, string.digits), "-", _r(24)))
_s("slack user", "user token {}", _j("xo", "xp-", _r(12, string.digits), "-", _r(12, string.digits), "-", _r(13, string.digits), "-", _r(32, HEX)))
_s("slack app", "socket mode {}", _j("xa", "pp-1-", _r(11, string.ascii_uppercase + string.digits), "-", _r(13, string.digits), "-", _r(64, HEX)))
_s("slack webhook", "post alerts to {}", _j("https://hooks.", "slack.com/services/T", _r(8, string.ascii_uppercase + string.digits), "/B", _r(8, string.ascii_uppercase + string.digits), "/", _r(24)))
_s("stripe secret", "Stripe: {}", _j("sk", "_live_", _r(24)))
_s("stripe restricted", "restricted key {}", _j("rk", "_live_", _r(24)))
_s("google api key", "Maps key {}", _j("AI", "za", "Sy", _r(33, URLSAFE)))
_s("google oauth token", "access token {}", _j("ya", "29.", _r(60, URLSAFE)))
_s("google client secret", "client secret {}", _j("GOC", "SPX-", _r(28, URLSAFE)))
_s("twilio api key", "Twilio API key {}", _j("S", "K", _r(32, HEX)))
_s("twilio auth token", "TWILIO_AUTH_TOKEN={}", _r(32, HEX))
_s("sendgrid", "SendGrid {}", _j("S", "G.", _r(22, URLSAFE), ".", _r(43, URLSAFE)))
_s("azure storage connection string",
   "DefaultEndpointsProtocol=https;AccountName=zcstore;AccountKey={};EndpointSuffix=core.windows.net",
   _r(86, B64) + "==")
_s("azure sas", "https://zcstore.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig={}",
   _r(43, B64) + "%3D")
_s("azure client secret", "AZURE_CLIENT_SECRET={}", _j(_r(3), "8Q~", _r(34, URLSAFE)))
_s("azure openai key", "AZURE_OPENAI_API_KEY={}", _r(32, HEX))
_s("telegram bot", "the bot token is {}", _j(_r(10, string.digits), ":AA", _r(33, URLSAFE)))
_s("discord bot", "discord bot {}", _j("MT", _r(24), ".", _r(6, URLSAFE), ".", _r(38, URLSAFE)))
_s("discord webhook", "webhook {}", _j("https://discord", ".com/api/webhooks/", _r(18, string.digits), "/", _r(68, URLSAFE)))
_s("jwt", "Authorization header carried {}", _jwt())
_s("pem rsa", "key:\n{}\nend", _pem("RSA "))
_s("pem openssh", "{}", _pem("OPENSSH "))
_s("pem ec", "ec key {}", _pem("EC "))
_s("pem pkcs8", "{}", _pem(""))
_s("postgres url", "DATABASE_URL is postgres://app:{}@db.internal:5432/app", _r(16))
_s("psql url", "psql postgresql://admin:{}@10.0.0.5/prod", _r(14))
_s("redis no user", "cache at redis://:{}@cache:6379/0", _r(18))
_s("url password with slash", "mongodb://root:{}@mongo:27017", _slash_pw)
_s("https basic url", "fetch https://deploy:{}@git.example.org/repo.git", _r(20))
_s("DB_PASSWORD", "DB_PASSWORD={}", _r(14))
_s("POSTGRES_PASSWORD", "set POSTGRES_PASSWORD={} in compose", _r(12))
_s("SECRET_KEY", "SECRET_KEY={}", _r(50, ALNUM + "!@#%^*(-_=+)"))
_s("TOKEN", "TOKEN={}", _r(32))
_s("MY_API_KEY", "MY_API_KEY={}", _r(24))
_s("export token", "export GITHUB_TOKEN={}", _r(40))
_s("dotenv quoted", 'STRIPE_WEBHOOK_SECRET="{}"', _j("wh", "sec_", _r(32)))
_s("json password", '{"user": "svc", "password": "{}"}', _pw)
_s("json api key", '{"api_key": "{}", "region": "eu"}', _r(32))
_s("yaml password", "db:\n  password: {}\n  host: x", _r(16))
_s("yaml letters only", "smtp:\n  password: {}\n", "correcthorsebatterystaple")
_s("yaml secret quoted", "client_secret: '{}'", _r(30))
_s("curl -u", "curl -u admin:{} https://api.example.org", _r(14))
_s("mysql -p", "mysql -u root -p{} prod", _r(12))
_s("mysql --password", "mysqldump --password={} app", _r(12))
_s("cli --token", "gh auth login --with-token --token {}", _r(30))
_s("cli --api-key", "tool run --api-key {}", _r(32))
_s("sshpass", "sshpass -p {} ssh deploy@host", _r(12))
_s("bearer", "curl -H 'Authorization: Bearer {}' https://x", _r(40, URLSAFE))
_s("basic header", "Authorization: Basic {}", base64.b64encode(f"svc:{_r(12)}".encode()).decode())
_s("password prose", "my password is {}", _pw)
_s("netrc", "machine api.example.org login max password {}", _r(16))
_s("npm", "npm token {}", _j("np", "m_", _r(36)))
_s("pypi", "upload with {}", _j("pyp", "i-AgEIcHlwaS5vcmc", _r(60, URLSAFE)))
_s("hugging face", "HF {}", _j("h", "f_", _r(34)))
_s("mailchimp", "mailchimp {}", _j(_r(32, HEX), "-us12"))
_s("mailgun", "mailgun {}", _j("key-", _r(32, HEX)))
_s("shopify", "shopify {}", _j("shp", "at_", _r(32, HEX)))
_s("digitalocean", "DO token {}", _j("dop", "_v1_", _r(64, HEX)))
_s("square", "square {}", _j("sq0", "atp-", _r(22, URLSAFE)))
_s("docker hub", "docker login with {}", _j("dckr", "_pat_", _r(27, URLSAFE)))
_s("vault", "VAULT token {}", _j("hv", "s.", _r(90, URLSAFE)))
_s("age", "age key {}", _j("AGE-SECRET", "-KEY-1", _r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")))
_s("linear", "linear {}", _j("lin", "_api_", _r(40)))
_s("notion", "notion {}", _j("nt", "n_", _r(46)))
_s("groq", "groq {}", _j("gs", "k_", _r(52)))
_s("datadog env", "DD_API_KEY={}", _r(32, HEX))
_s("heroku env", "HEROKU_API_KEY={}", str(uuid.UUID(int=_rng.getrandbits(128))))

_sha256 = hashlib.sha256(b"zettelclaw").hexdigest()
_sha1 = hashlib.sha1(b"zettelclaw").hexdigest()
_uuid = str(uuid.UUID(int=_rng.getrandbits(128)))

LOOKALIKES: list[tuple[str, str]] = [(n, t) for n, t in [
    ("prose password policy", "The password policy needs 12 characters and a symbol."),
    ("prose reset", "Fix the password reset flow before the release."),
    ("prose passwordless", "We are moving to passwordless login with passkeys."),
    ("prose rotate", "Rotate the database password every 90 days."),
    ("prose stored in", "The API key is stored in 1Password, ask Max."),
    ("prose secret santa", "Secret Santa draw is on Friday."),
    ("prose token budget", "The token budget is 4000 per call."),
    ("prose max_tokens", "max_tokens=1024 was too low for the briefing"),
    ("prose tokenizer", "The tokenizer splits camelCase words."),
    ("prose bearer", "Bearer tokens expire after one hour."),
    ("prose basic auth", "Basic authentication is disabled on the admin panel."),
    ("prose env var", "Set MY_API_KEY in the environment before running the tests."),
    ("prose SECRET_KEY", "SECRET_KEY should be rotated when someone leaves."),
    ("prose sk-ant", "Ask Max about the sk-ant prefix convention."),
    ("prose aws", "Create an AWS access key for the CI user."),
    ("prose mysql -p", "Run mysql -u root -p and type the password at the prompt."),
    ("prose curl -u", "curl -u admin prompts for the password."),
    ("prose password word", "password"),
    ("prose secret word", "This is not a secret: we ship on Monday."),
    ("prose token colon", "Token: see the vault entry for staging."),
    ("placeholder api key", "API_KEY=<your-api-key>"),
    ("placeholder env ref", "TOKEN=${TOKEN}"),
    ("placeholder dollar", "export GITHUB_TOKEN=$GH_TOKEN"),
    ("placeholder stars", "password=********"),
    ("placeholder sk", "keys look like sk-... and start with sk-ant-"),
    ("placeholder akia", "AWS key ids start with AKIA..."),
    ("placeholder xxx", "DB_PASSWORD=xxxxxxxx"),
    ("placeholder changeme", "POSTGRES_PASSWORD=changeme in the example file"),
    ("placeholder redacted", "MY_API_KEY=[redacted]"),
    ("placeholder json", '{"password": ""}'),
    ("placeholder yaml", "password: <set-me>"),
    ("sha256", f"the tarball sha256 is {_sha256}"),
    ("sha256 prefixed", f"image digest sha256:{_sha256}"),
    ("sha1", f"sha1 {_sha1}"),
    ("commit id", f"fixed in commit {hashlib.sha1(b'fix').hexdigest()}"),
    ("short commit", "reverted 4ab47e6 and 629b535"),
    ("md5", f"md5 {hashlib.md5(b'x').hexdigest()}"),
    ("uuid", f"session {_uuid} was swept"),
    ("uuid upper", f"request id {_uuid.upper()}"),
    ("entry id", "corrects entry 01JD2K8X9Q7M4N5P6R7S8T9V0W"),
    ("base64 text", "the header was " + base64.b64encode(b"hello world, this is plain text").decode()),
    ("base64 json", "payload " + base64.b64encode(b'{"event":"deploy","ok":true}').decode()),
    ("version", "upgrade openclaw to 2026.9.6 and node to v22.11.0"),
    ("semver pre", "pin detect-secrets==1.5.0 and typer>=0.26.0rc1"),
    ("timestamp", "at 2026-11-23T12:36:17.123456Z the sweep ran"),
    ("url with port", "https://example.com:8080/path?x=1"),
    ("git ssh url", "git@github.com:openclaw/zettelclaw.git"),
    ("email", "mail max@example.org about it"),
    ("ip", "the db is at 10.0.0.5:5432"),
    ("path", "~/.openclaw/agents/main/sessions/abc123.jsonl"),
    ("url no password", "postgres://app@db.internal:5432/app"),
    ("env normal", "NODE_ENV=production PORT=8080 DEBUG=true"),
    ("ssh public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDJ3kq1nX5v3c0y2aSx9w8fR0mJmJb0bq5x2jv0n5uZ4 max@laptop"),
    ("camel identifier", "call getAccessTokenForServiceAccount() once"),
    ("python identifier", "the function parse_api_key_from_env_or_config handles it"),
    ("long word", "Pneumonoultramicroscopicsilicovolcanoconiosis is a word"),
    ("snake constant", "MAX_TOKEN_COUNT=4096"),
    ("token count", "used 12345 input tokens and 678 output tokens"),
    ("secret manager", "secrets live in AWS Secrets Manager under prod/app"),
    ("password field name", 'the form field is named "password" and "password_confirm"'),
    ("hex color", "brand color #1a2b3c and #ffffff"),
    ("phone", "call +1 415 555 0100"),
    ("docker tag", "ghcr.io/openclaw/gateway:2026.9.6-alpine"),
    ("npm package", "npm i @openclaw/plugin-sdk@2026.9.6"),
    ("key file path", "the key is in ~/.ssh/id_ed25519, never commit it"),
    ("random id", "ticket ZC-1142, branch issue11-e"),
    ("token word in cli", "pass --token-file ~/.config/tok instead"),
    ("password flag prose", "use --password-stdin with docker login"),
    ("pid", "gateway pid 48213 exited with 137"),
    ("markdown", "## Secrets\n- never paste keys in chat"),
    ("name colon prose", "No ANTHROPIC_API_KEY: REPLAYING recorded model output"),
]]
