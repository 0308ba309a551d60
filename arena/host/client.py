"""``arena submit``'s side of the API: pack a bot's folder, upload it, and follow it to its end.

The token comes from a file or ``$ARENA_TOKEN``, never from the command line (where ``ps`` shows it to every
user of the machine), and is sent only in the ``Authorization`` header. The client uses the standard library's
HTTP: an entrant needs nothing but the arena installed.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from arena.host.archive import pack

__all__ = ["TOKEN_ENV", "ClientError", "Submitted", "follow", "read_token", "upload"]

TOKEN_ENV = "ARENA_TOKEN"
#: Seconds an HTTP request may take before the client gives up on the server.
TIMEOUT = 120.0


class ClientError(Exception):
    """Bad input or a refusal (exit code 2): one line."""


class ServerError(Exception):
    """The server could not be reached or answered something unexpected: one line."""


@dataclass(frozen=True)
class Submitted:
    id: int
    url: str
    duplicate: bool
    data: dict[str, Any]


def read_token(token_file: Path | None) -> str:
    """The token of ``--token-file`` (its first line) or of ``$ARENA_TOKEN``."""
    if token_file is not None:
        try:
            text = token_file.expanduser().read_text(encoding="utf-8")
        except OSError as error:
            raise ClientError(f"cannot read the token file {token_file}: {error.strerror or error}") from None
        token = text.strip().splitlines()[0].strip() if text.strip() else ""
        if not token:
            raise ClientError(f"the token file {token_file} is empty")
        return token
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise ClientError(
            f"no token: give --token-file FILE or set ${TOKEN_ENV} (never the token itself as an argument)"
        )
    return token


def _base(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"{url!r} is not a server's address (http://HOST:PORT/ or https://...)")
    return url if url.endswith("/") else url + "/"


def _request(request: urllib.request.Request) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return dict(json.loads(answer.read().decode("utf-8")))
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read().decode("utf-8")).get("error", "")
        except (ValueError, OSError):
            message = ""
        raise ClientError(f"the server refused ({error.code}): {message or error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ServerError(f"cannot reach {request.full_url}: {reason}") from None
    except ValueError:
        raise ServerError(f"{request.full_url} did not answer JSON: is it an arena host?") from None


def upload(url: str, folder: Path, token: str) -> Submitted:
    """Pack ``folder`` and submit it; the submission the server made (or the one this archive already was)."""
    base = _base(url)
    if not folder.is_dir():
        raise ClientError(f"{folder} is not a folder")
    try:
        body = pack(folder)
    except (ValueError, OSError) as error:
        raise ClientError(f"cannot pack {folder}: {error}") from None
    request = urllib.request.Request(
        urljoin(base, "api/submissions"),
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"},
    )
    data = _request(request)
    return Submitted(int(data["id"]), urljoin(base, str(data["url"]).lstrip("/")), bool(data["duplicate"]), data)


def status(url: str, submission: int, token: str) -> dict[str, Any]:
    request = urllib.request.Request(
        urljoin(_base(url), f"api/submissions/{submission}"), headers={"Authorization": f"Bearer {token}"}
    )
    return _request(request)


def follow(
    url: str, submission: int, token: str, say: Callable[[str], None], *, poll: float = 1.0, timeout: float = 86_400
) -> dict[str, Any]:
    """Poll the submission until it ends, saying each change of state (and of ``playing N of M``) once."""
    said = ""
    deadline = time.monotonic() + timeout
    while True:
        data = status(url, submission, token)
        line = data["state"]
        if line == "playing":
            line = f"playing {data['done']} of {data['total']}"
        elif line == "ranked":
            line = f"ranked: {data['rank']}" if data.get("rank") else "ranked"
        elif line == "failed":
            line = f"failed: {data['reason']}"
        if line != said:
            say(line)
            said = line
        if data["state"] in ("ranked", "failed"):
            return data
        if time.monotonic() > deadline:
            raise ServerError(f"submission {submission} did not end within {timeout:g} s")
        time.sleep(poll)
