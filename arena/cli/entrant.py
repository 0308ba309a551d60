"""`arena entrant add|revoke|list cup.toml [NAME]`: the entrants of a hosted competition (docs/hosting.md).

`add` prints the entrant's token once (only its hash is kept: lost, it is replaced by `revoke` then `add`);
`revoke` stops the entrant's tokens and sessions at once (a running `arena host` reads them at every request);
`list` shows every entrant, its owner and its submissions. It works on the competition's folder directly, with
or without `arena host` running.
"""

from __future__ import annotations

import datetime as dt
import enum
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from arena.cli import common
from arena.cli.common import UsageError, cli_errors, console, plain_table, print_json
from arena.cli.host import load_hosted

__all__ = ["command"]


class Action(enum.StrEnum):
    ADD = "add"
    REVOKE = "revoke"
    LIST = "list"


def _when(stamp: float | None) -> str:
    return "" if stamp is None else dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


@cli_errors
def command(
    action: Annotated[Action, typer.Argument(help="add, revoke or list.", show_default=False)],
    file: Annotated[Path, typer.Argument(help="The competition file, with its \\[host] table.", show_default=False)],
    name: Annotated[str | None, typer.Argument(help="The entrant's name (add, revoke).", show_default=False)] = None,
    owner: Annotated[
        str | None, typer.Option("--owner", help="Who the entrant is (add): shown on the leaderboard.")
    ] = None,
    json_out: common.JsonOpt = False,
) -> None:
    loaded = load_hosted(file)
    from arena.host import accounts
    from arena.host.accounts import AccountError
    from arena.host.db import HostPaths, connect

    db = connect(HostPaths.beside(loaded.file))
    try:
        if action is Action.LIST:
            rows = accounts.list_entrants(db)
            if json_out:
                print_json([{**dict(r), "revoked": r["revoked"] is not None} for r in rows])
                return
            table = plain_table(f"{len(rows)} entrant{'s' if len(rows) != 1 else ''}", show_lines=False)
            for column in ("entrant", "owner", "added", "submissions", "status"):
                table.add_column(column, overflow="fold")
            for r in rows:
                status = f"revoked {_when(r['revoked'])}" if r["revoked"] is not None else "active"
                table.add_row(Text(r["name"]), Text(r["owner"]), _when(r["created"]), str(r["submissions"]), status)
            console.print(table)
            return
        if name is None:
            raise UsageError(f"arena entrant {action.value} needs the entrant's NAME")
        if action is Action.ADD:
            if not owner:
                raise UsageError("arena entrant add needs --owner (who the entrant is)")
            token = accounts.add_entrant(db, name, owner)
            if json_out:
                print_json({"entrant": name, "token": token})
                return
            console.print(Text(f"entrant {name} added; its token, shown this once:"), soft_wrap=True)
            console.print(Text(token), soft_wrap=True)
            return
        count = accounts.revoke_entrant(db, name)
        if json_out:
            print_json({"entrant": name, "revoked_keys": count})
            return
        console.print(Text(f"entrant {name} revoked: its token and sessions stop working now"), soft_wrap=True)
    except AccountError as error:
        raise UsageError(str(error)) from None
    finally:
        db.close()
