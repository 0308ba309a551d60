"""The one-second cache of public pages (arena/host/cache.py): anonymous GETs share one answer; a session, a token,
a cookie set, an error or another method never share one."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from arena.host.cache import MicroCache


def make(ttl: float = 3600.0) -> tuple[TestClient, list[str]]:
    calls: list[str] = []

    def page(request: Request) -> PlainTextResponse:
        calls.append(request.url.path)
        return PlainTextResponse(f"answer {len(calls)}")

    def cookie(request: Request) -> PlainTextResponse:
        calls.append(request.url.path)
        response = PlainTextResponse(f"answer {len(calls)}")
        response.set_cookie("form", str(len(calls)))
        return response

    def broken(request: Request) -> PlainTextResponse:
        calls.append(request.url.path)
        return PlainTextResponse("no", 404)

    app = Starlette(
        routes=[Route("/", page, methods=["GET", "POST"]), Route("/cookie", cookie), Route("/broken", broken)],
        middleware=[Middleware(MicroCache, ttl=ttl)],
    )
    return TestClient(app), calls


def test_anonymous_gets_share_an_answer_per_path_and_query() -> None:
    client, calls = make()
    answers = [client.get("/").text for _ in range(5)]
    assert answers == ["answer 1"] * 5 and calls == ["/"]
    assert client.get("/?page=2").text == "answer 2"
    assert len(calls) == 2


def test_nothing_personal_or_failed_is_shared() -> None:
    client, calls = make()
    signed_in = [client.get("/", headers={"Cookie": "arena_session=abc"}).text for _ in range(2)]
    tokens = [client.get("/", headers={"Authorization": "Bearer x"}).text for _ in range(2)]
    posts = [client.post("/").text for _ in range(2)]
    cookies = [client.get("/cookie").text for _ in range(2)]
    errors = [client.get("/broken").status_code for _ in range(2)]
    assert len(set(signed_in + tokens + posts + cookies)) == 8, "a personal answer was shared"
    assert errors == [404, 404] and len(calls) == 10


def test_an_old_answer_goes_out_at_once_and_the_new_one_follows() -> None:
    """With every answer expired at once (ttl 0): the first reader makes the page; each later reader gets the
    answer held, while one new answer at a time is made behind it; the readers after that get the new one."""
    import threading

    release = threading.Event()
    calls: list[int] = []

    def page(request: Request) -> PlainTextResponse:
        calls.append(1)
        if len(calls) == 2:  # the first making behind an old answer waits until the test lets it go
            assert release.wait(60)
        return PlainTextResponse(f"answer {len(calls)}")

    app = Starlette(routes=[Route("/", page)], middleware=[Middleware(MicroCache, ttl=0.0)])
    with TestClient(app) as client:
        assert client.get("/").text == "answer 1"
        crowd = [client.get("/").text for _ in range(4)]
        assert crowd == ["answer 1"] * 4, "a reader waited for the new answer"
        assert len(calls) == 2, "the crowd made the page more than once at a time"
        release.set()
        later = ""
        for _ in range(1000):  # until the answer made behind the old one is held (no fixed wait)
            later = client.get("/").text
            if later != "answer 1":
                break
            release.wait(0.01)
        assert later in ("answer 2", "answer 3")


def test_a_crowd_at_a_page_not_yet_kept_waits_for_one_answer() -> None:
    """Twenty readers arrive at once at a page nobody read before: the page is made once, and all get it."""
    import asyncio

    calls: list[str] = []

    async def run() -> list[bytes]:
        release = asyncio.Event()

        async def page(scope: object, receive: object, send: object) -> None:  # held until every reader is in
            calls.append("/")
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
            await send({"type": "http.response.body", "body": f"answer {len(calls)}".encode()})  # type: ignore[operator]

        cache = MicroCache(page, ttl=3600.0)

        async def reader() -> bytes:
            body = b""

            async def receive() -> dict[str, object]:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message: dict[str, object]) -> None:
                nonlocal body
                body += message.get("body", b"")  # type: ignore[operator]

            scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "headers": []}
            await cache(scope, receive, send)  # type: ignore[arg-type]
            return body

        tasks = [asyncio.ensure_future(reader()) for _ in range(20)]
        for _ in range(20):  # every reader runs until it waits: in the page, or behind its first reader
            await asyncio.sleep(0)
        release.set()
        return list(await asyncio.gather(*tasks))

    answers = asyncio.run(run())
    assert answers == [b"answer 1"] * 20 and calls == ["/"]
