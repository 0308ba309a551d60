"""The host's web app over real HTTP (arena/host/app.py, routes.py, server.py): submissions checked as they stream
in, tokens and sessions, CSRF, one-line refusals, the private seed in no answer, entrant text inert on every page.
No queue runs here: submissions stay received (tests/arena/host/test_host_cli.py plays them)."""

from __future__ import annotations

import gzip
import io
import re
import select
import socket
import tarfile
from pathlib import Path

import pytest
from host_support import PAYLOAD, Client, Hosted

from arena.host import queue
from arena.host.archive import pack
from arena.host.boards import commitment, private_seed
from arena.host.db import connect
from arena.kits.new_bot import new_bot

#: A real server on 127.0.0.1 per test, and a 200 MB body streamed at it.
pytestmark = pytest.mark.slow


def kit(tmp_path: Path, name: str = "kitbot") -> bytes:
    return pack(new_bot(name, "python", tmp_path / name).folder)


def evil(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, link
        tar.addfile(info, io.BytesIO(b""))
    return buffer.getvalue()


def one_line(answer: object) -> str:
    message = answer.json()["error"]  # type: ignore[attr-defined]
    assert "\n" not in message and "Traceback" not in message
    return str(message)


def test_a_kit_is_received_once_and_shown_to_its_owner_only(hosted: Hosted, tmp_path: Path) -> None:
    client = hosted.client()
    archive = kit(tmp_path)
    first = client.submit(archive, hosted.tokens["alice"])
    assert first.status == 201, first.text
    data = first.json()
    assert data["state"] == "received" and data["files"] >= 9 and not data["duplicate"]
    assert (hosted.paths.archive(data["sha256"])).read_bytes() == archive
    again = client.submit(archive, hosted.tokens["alice"])
    assert again.status == 200 and again.json()["id"] == data["id"] and again.json()["duplicate"]
    mine = client.get(f"/api/submissions/{data['id']}", hosted.tokens["alice"])
    assert mine.status == 200 and mine.json()["sha256"] == data["sha256"]
    assert [e["state"] for e in mine.json()["events"]] == ["received"]
    organizer = client.get(f"/api/submissions/{data['id']}", hosted.tokens["organizer"])
    assert organizer.status == 200
    # Another entrant's token, a wrong one, none: nothing of alice's, and the same answer as for no submission.
    others = {
        "bob": client.get(f"/api/submissions/{data['id']}", hosted.tokens["bob"]),
        "none": client.get(f"/api/submissions/{data['id']}"),
        "unknown": client.get("/api/submissions/9999", hosted.tokens["bob"]),
    }
    for who, answer in others.items():
        assert answer.status == 404, who
        assert data["sha256"] not in answer.text and "kitbot" not in answer.text
    wrong = client.get(f"/api/submissions/{data['id']}", hosted.tokens["alice"][:-2] + "xx")
    assert wrong.status == 401 and one_line(wrong) == "wrong or revoked token"


def test_hostile_archives_are_refused_with_their_rule_and_nothing_kept(hosted: Hosted) -> None:
    client, token = hosted.client(), hosted.tokens["alice"]
    cases = {
        "path": evil("../../escape.txt"),
        "type": evil("link", tarfile.SYMTYPE, "/etc/passwd"),
        "format": b"this is not a tar.gz",
    }
    for rule, body in cases.items():
        answer = client.submit(body, token)
        assert answer.status == 400, (rule, answer.text)
        assert one_line(answer).startswith(f"{rule}: ")
    many = io.BytesIO()
    with gzip.GzipFile(fileobj=many, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for n in range(10_000):
            info = tarfile.TarInfo(f"f{n}")
            tar.addfile(info, io.BytesIO(b""))
    answer = client.submit(many.getvalue(), token)
    assert answer.status == 400 and one_line(answer).startswith("files: ")
    assert list(hosted.paths.archives.iterdir()) == [] and list(hosted.paths.incoming.iterdir()) == []
    db = connect(hosted.paths)
    assert queue.history(db) == [], "a refused archive became a submission"
    assert client.get("/").status == 200, "the server stopped serving"


def _send_until_answered(port: int, token: str, total: int, declared: bool) -> tuple[int, bytes]:
    """POST a ``total``-byte body in 64 KiB pieces (chunked, or with its Content-Length), stopping as soon as the
    server answers; the bytes of body sent, and the answer's first bytes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    head = f"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
    head += f"Content-Length: {total}\r\n" if declared else "Transfer-Encoding: chunked\r\n"
    sock.sendall((head + "Content-Type: application/gzip\r\n\r\n").encode())
    piece = gzip.compress(b"")[:10] + bytes(range(256)) * 256  # a gzip header, then 64 KiB of noise
    sent = 0
    answer = b""
    try:
        while sent < total:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            sock.sendall(piece if declared else b"%x\r\n" % len(piece) + piece + b"\r\n")
            sent += len(piece)
    except (BrokenPipeError, ConnectionResetError):
        pass
    try:
        sock.settimeout(60)
        answer = sock.recv(4096)
    except (ConnectionResetError, TimeoutError):
        answer = b""
    sock.close()
    return sent, answer


def test_a_200_mb_body_is_refused_while_it_streams(hosted: Hosted) -> None:
    token, total = hosted.tokens["alice"], 200 * 1024 * 1024
    sent, answer = _send_until_answered(hosted.port, token, total, declared=False)
    assert answer.startswith(b"HTTP/1.1 4"), answer[:200]
    assert b"413" in answer.split(b"\r\n")[0] or b"400" in answer.split(b"\r\n")[0], answer[:200]
    assert sent < total // 4, f"the server let {sent} of {total} bytes in before refusing"
    sent, answer = _send_until_answered(hosted.port, token, total, declared=True)
    assert answer.split(b"\r\n")[0].endswith(b"413 Request Entity Too Large") or b" 413 " in answer[:20], answer[:200]
    assert sent < total // 4
    assert hosted.client().get("/").status == 200


def test_revoke_works_at_once(hosted: Hosted, tmp_path: Path) -> None:
    from arena.host import accounts

    client = hosted.client()
    assert client.submit(kit(tmp_path), hosted.tokens["bob"]).status == 201
    accounts.revoke_entrant(connect(hosted.paths), "bob")
    answer = client.submit(kit(tmp_path, "other"), hosted.tokens["bob"])
    assert answer.status == 401 and one_line(answer) == "wrong or revoked token"


def test_repeated_bad_tokens_are_slowed(hosted: Hosted) -> None:
    client = hosted.client()
    statuses = [client.get("/api/submissions/1", "0123456789ab.wrongwrongwrongwrongwrong").status for _ in range(8)]
    assert statuses[:5] == [401] * 5 and 429 in statuses[5:], statuses
    slowed = client.get("/api/submissions/1", hosted.tokens["alice"])
    assert slowed.status == 429 and "retry-after" in slowed.headers, "the same address went on guessing freely"


def _sign_in(client: Client, token: str) -> str:
    form = client.get("/signin")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert form.status == 200 and csrf is not None
    body = f"csrf={csrf.group(1)}&token={token}".encode()
    answer = client.request("POST", "/signin", body, {"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status == 303 and "arena_session" in client.cookies, answer.text
    page = client.get("/submit")
    found = re.search(r'data-csrf="([^"]+)"', page.text)
    assert found is not None, page.text[:500]
    return found.group(1)


def test_a_browser_session_submits_only_with_its_csrf_token(hosted: Hosted, tmp_path: Path) -> None:
    client = hosted.client()
    csrf = _sign_in(client, hosted.tokens["alice"])
    archive = kit(tmp_path)
    missing = client.request("POST", "/api/submissions", archive, {"Content-Type": "application/gzip"})
    assert missing.status == 403 and "CSRF" in one_line(missing)
    foreign = client.request(
        "POST", "/api/submissions", archive,
        {"X-CSRF-Token": csrf, "Origin": "http://evil.example", "Content-Type": "application/gzip"},
    )  # fmt: skip
    assert foreign.status == 403
    made = client.request("POST", "/api/submissions", archive, {"X-CSRF-Token": csrf})
    assert made.status == 201, made.text
    page = client.get(f"/s/{made.json()['id']}")
    assert page.status == 200 and made.json()["sha256"] in page.text
    # a sign-in without the form's token is refused: no login CSRF
    stranger = Client(hosted.port)
    answer = stranger.request(
        "POST",
        "/signin",
        f"token={hosted.tokens['alice']}".encode(),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status == 403 and "arena_session" not in stranger.cookies


def test_the_private_seed_is_in_no_answer_before_the_close(hosted: Hosted, tmp_path: Path) -> None:
    client = hosted.client()
    csrf = _sign_in(client, hosted.tokens["alice"])
    client.request("POST", "/api/submissions", kit(tmp_path), {"X-CSRF-Token": csrf})
    seed = private_seed(connect(hosted.paths))
    pages = [
        *("/", "/api/competition", "/signin", "/submit", "/mine", "/e/alice", "/e/bob", "/s/1", "/api/submissions/1"),
        *("/nope", "/s/99", "/t/nope/", "/static/site.css", "/host/static/host.js", "/host/static/host.css"),
    ]
    seen = 0
    for path in pages:
        for asker in (client, Client(hosted.port)):
            answer = asker.get(path)
            seen += 1
            assert str(seed) not in answer.text, f"the private seed is in {path}"
            assert "Traceback" not in answer.text
    home = client.get("/api/competition").json()
    assert home["private"]["seed"] is None and home["private"]["seed_sha256"] == commitment(seed)
    assert commitment(seed) in client.get("/").text
    assert seen == 2 * len(pages)


def test_entrant_text_is_inert_on_every_page(hosted: Hosted, tmp_path: Path) -> None:
    client = hosted.client()
    made = client.submit(kit(tmp_path), hosted.tokens["bob"]).json()
    hosted.paths.build_log(made["id"]).write_text(f"compiling...\n{PAYLOAD}\n", encoding="utf-8")
    db = connect(hosted.paths)
    queue.finish(db, made["id"], queue.State.FAILED, f"build: exit 1 ({PAYLOAD})")
    _sign_in(client, hosted.tokens["bob"])
    checked = 0
    for path in ("/", "/e/bob", f"/s/{made['id']}", "/mine"):
        answer = client.get(path)
        assert answer.status in (200, 303), path
        assert "<script>window.pwned" not in answer.text and "<img src=x" not in answer.text, path
        checked += "&lt;script&gt;window.pwned" in answer.text
    assert checked >= 2, "the payload was not shown (escaped) where it belongs"
    assert "script-src 'self'" in client.get("/").headers["content-security-policy"]


def test_bad_requests_are_one_line_and_the_server_keeps_serving(hosted: Hosted) -> None:
    client = hosted.client()
    answers = {
        "method": client.request("DELETE", "/api/submissions"),
        "unknown": client.get("/api/submissions/abc", hosted.tokens["alice"]),
        "header": client.request("POST", "/api/submissions", b"x", {"Authorization": "Basic abc"}),
        "form": client.request("POST", "/signin", b"x" * 20000, {"Content-Type": "application/x-www-form-urlencoded"}),
    }
    for what, answer in answers.items():
        assert 400 <= answer.status < 500, (what, answer.status)
        assert "Traceback" not in answer.text, what
    assert answers["header"].status == 401 and answers["form"].status == 413
    assert client.get("/").status == 200


def test_sign_up_with_the_invitation_code(tmp_path: Path) -> None:
    from host_support import serving, write_cup

    file = write_cup(tmp_path / "class", extra='invitation = "class-code-2026"\n')
    with serving(file, {}) as hosted:
        client = hosted.client()

        def sign_up(code: str, name: str) -> object:
            form = client.get("/signup")
            csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
            assert form.status == 200 and csrf is not None
            body = f"csrf={csrf.group(1)}&code={code}&name={name}&owner=Carol+C.".encode()
            return client.request("POST", "/signup", body, {"Content-Type": "application/x-www-form-urlencoded"})

        wrong = sign_up("guess", "carol")
        assert wrong.status == 400 and "wrong invitation code" in wrong.text  # type: ignore[attr-defined]
        made = sign_up("class-code-2026", "carol")
        assert made.status == 200  # type: ignore[attr-defined]
        token = re.search(r'<code id="token">([^<]+)</code>', made.text)  # type: ignore[attr-defined]
        assert token is not None
        assert client.submit(kit(tmp_path), token.group(1)).status == 201
        taken = sign_up("class-code-2026", "carol")
        assert taken.status == 400 and "taken" in taken.text  # type: ignore[attr-defined]


def test_no_sign_up_without_an_invitation(hosted: Hosted) -> None:
    client = hosted.client()
    assert client.get("/signup").status == 404
    assert client.request("POST", "/signup", b"code=x&name=y&owner=z").status == 404


def test_the_organizer_sees_every_submission_but_does_not_submit(hosted: Hosted, tmp_path: Path) -> None:
    made = hosted.client().submit(kit(tmp_path), hosted.tokens["alice"]).json()
    organizer = hosted.client()
    form = organizer.get("/signin")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf is not None
    body = f"csrf={csrf.group(1)}&token={hosted.tokens['organizer']}".encode()
    signed = organizer.request("POST", "/signin", body, {"Content-Type": "application/x-www-form-urlencoded"})
    assert signed.status == 303
    every = organizer.get("/mine")
    assert every.status == 200 and f'href="/s/{made["id"]}"' in every.text and "every submission" in every.text
    assert organizer.get(f"/s/{made['id']}").status == 200
    assert organizer.get("/submit").status == 403
    refused = organizer.submit(kit(tmp_path, "other"), hosted.tokens["organizer"])
    assert refused.status == 403 and "organizer" in one_line(refused)
