"""A player's pages: what one player did in a tournament (outcomes, losses by class with the expected losses,
failures) and its games, page by page, each linked to its replay.

Built as ``arena.web.pages`` builds every page (a ``Page``: template, context, the JSON of ``?format=json``): the
player's page is ``arena losses --json`` and an entry of ``arena errors --json`` side by side.
"""

from __future__ import annotations

from typing import Any

from arena.analysis.losses import CLASS_MEANING
from arena.outcome import FAILURES, Outcome
from arena.results.store import Store
from arena.web import data, games_data, judging
from arena.web.links import Links
from arena.web.pages import Page, _crumbs, _options, tournament_label

__all__ = ["BOARDS_SHOWN", "games_page", "player_page"]

#: Boards listed per class of loss on a player's page (the games list has them all).
BOARDS_SHOWN = 40


def _loss_context(report: Any, tid: str, slug: str, links: Links) -> dict[str, Any] | str:
    if isinstance(report, str):
        return report
    if isinstance(report, judging.Pending):
        return {"pending": report}
    classes = report.classes
    most = max(classes.values(), default=0) or 1
    boards = report.boards
    rows = []
    for name, count in classes.items():
        if name == "unanalysed" and not count:
            continue
        shown = [(b, links.game(tid, b, slug)) for b in boards[name][:BOARDS_SHOWN]]
        rows.append(
            {
                "name": name,
                "count": count,
                "meaning": CLASS_MEANING[name],
                "width": round(100 * count / most, 2),
                "boards": shown,
                "more": max(0, count - len(shown)),
            }
        )
    expected = report.expected_losses
    top = max(expected["high"], expected["observed"], 1.0) * 1.1

    def x(v: float) -> float:
        return round(100 * v / top, 3)

    calibration = {
        **expected,
        "x_low": x(expected["low"]),
        "x_high": x(expected["high"]),
        "x_expected": x(expected["expected"]),
        "x_observed": x(expected["observed"]),
        "top": top,
    }
    return {
        "rows": rows,
        "losses": report.losses,
        "games": len(report.games),
        "calibration": calibration,
        "guesses": report.guesses_per_game,
        "regret": report.regret["total"],
    }


def player_page(db: Store, tid: str, slug: str, links: Links, *, not_judged: str | None = None) -> Page:
    """One player of a tournament: outcomes, losses by class with the expected losses, failures, its games.
    ``not_judged``: the losses are not judged, for this reason (a static site of a large tournament)."""
    meta = data.tournament(db, tid)
    info = data.find_player(db, tid, slug)
    key = info["player"]
    leaderboard = data.leaderboard(db, tid)
    row = next((r for r in leaderboard.rows if r.player == key), None)
    older = False
    if row is None:  # an older version: the leaderboard shows the latest; its own row is among every version's
        row = next((r for r in data.leaderboard(db, tid, all_versions=True).rows if r.player == key), None)
        older = row is not None
    failures = data.failures(db, tid, key)
    losses = not_judged if not_judged is not None else judging.losses(db, tid, key, background=links.live)
    counts = {o.value: failures.outcomes.get(o.value, 0) for o in Outcome}
    total = sum(counts.values()) or 1
    outcome_bars = [
        {"name": name, "count": n, "width": round(100 * n / total, 3)}
        for name, n in counts.items()
        if n or name in ("won", "lost")
    ]
    failure_rows = [{"f": f, "href": links.game(tid, f.board, slug)} for f in failures.failures]
    others = [
        {"key": other["player"], "href": links.diff(tid, slug, other_slug)}
        for other_slug, other in data.players(db, tid).items()
        if other_slug != slug
    ]
    status = data.live_status(db, tid)
    context = {
        "meta": meta,
        "tid": tid,
        "slug": slug,
        "key": key,
        "info": info,
        "options": _options(info),
        "row": row,
        "older": older,
        "versions_href": links.versions(tid),
        "boards": leaderboard.config.boards,
        "outcomes": outcome_bars,
        "failures": failures,
        "failure_rows": failure_rows,
        "losses": _loss_context(losses, tid, slug, links),
        "filters": [(name, links.games(tid, slug, name, 1)) for name in games_data.OUTCOME_FILTERS],
        "filter_counts": {
            "all": sum(counts.values()),
            "won": counts["won"],
            "lost": counts["lost"],
            "failed": sum(counts[o.value] for o in FAILURES),
        },
        "others": others,
        "status": status,
    }
    payload = {
        "tournament": tid,
        "player": key,
        "name": info["name"],
        "version": info["version"],
        "source": info["source"],
        "owner": info["owner"],
        "options": _options(info),
        "leaderboard": row.model_dump() if row is not None else None,
        "outcomes": failures.outcomes,
        "losses": (
            {"unavailable": losses}
            if isinstance(losses, str)
            else {"pending": True, "games": losses.games, "since": losses.started}
            if isinstance(losses, judging.Pending)
            else losses.as_json()
        ),
        "failures": failures.model_dump(),
    }
    crumbs = _crumbs(links, tid, tournament_label(meta), (key, None))
    live = links.live and (status.live or isinstance(losses, judging.Pending))
    return Page("player.html", f"{key} · {tournament_label(meta)}", context, payload, live, crumbs)


def _loss_classes(db: Store, tid: str, key: str, links: Links, judge: bool) -> dict[int, str] | str:
    """Each lost or failed board's class of loss (``arena losses``), or why it is not given here."""
    if not judge:
        return "not judged for this site"
    report = judging.losses(db, tid, key, background=links.live)
    if isinstance(report, str):
        return report
    if isinstance(report, judging.Pending):
        return "being judged: reload in a moment"
    return {board: name for name, boards in report.boards.items() for board in boards}


def games_page(
    db: Store,
    tid: str,
    slug: str,
    outcome: str,
    page: int,
    links: Links,
    per_page: int = 50,
    *,
    judge: bool = True,
) -> Page:
    """One page of a player's games, filtered by outcome, each board linking to its replay; a failed game shows
    its error, a lost one its class of loss (``judge=False``: not judged, a large site)."""
    meta = data.tournament(db, tid)
    key = data.find_player(db, tid, slug)["player"]
    found = games_data.games_page(db, tid, key, outcome, page, per_page)
    classes: dict[int, str] | str = {}
    if outcome in ("lost", "failed") or any(g.outcome.value == "lost" for g in found.rows):
        classes = _loss_classes(db, tid, key, links, judge)
    rows = [
        {
            "g": g,
            "href": links.game(tid, g.board, slug),
            "board_href": links.board(tid, g.board),
            "why": (
                g.error
                if g.outcome.value != "won" and g.outcome.value != "lost"
                else (classes.get(g.board, "") if isinstance(classes, dict) else "")
                if g.outcome.value == "lost"
                else ""
            ),
            "meaning": CLASS_MEANING.get(classes.get(g.board, ""), "") if isinstance(classes, dict) else "",
        }
        for g in found.rows
    ]
    pager = {
        "prev": links.games(tid, slug, outcome, page - 1) if page > 1 else None,
        "next": links.games(tid, slug, outcome, page + 1) if page < found.pages else None,
    }
    context = {
        "tid": tid,
        "key": key,
        "slug": slug,
        "outcome": outcome,
        "found": found,
        "rows": rows,
        "pager": pager,
        "classes_note": classes if isinstance(classes, str) else "",
        "filters": [(name, links.games(tid, slug, name, 1), found.counts[name]) for name in games_data.OUTCOME_FILTERS],
    }
    payload = {
        "tournament": tid,
        "player": key,
        "outcome": outcome,
        "page": found.page,
        "pages": found.pages,
        "total": found.total,
        "games": [
            {
                **g.as_row(),
                **({"loss_class": classes[g.board]} if isinstance(classes, dict) and g.board in classes else {}),
            }
            for g in found.rows
        ],
    }
    crumbs = _crumbs(links, tid, tournament_label(meta), (key, links.player(tid, slug)), (f"{outcome} games", None))
    return Page("games.html", f"{key}: {outcome} games", context, payload, False, crumbs)
