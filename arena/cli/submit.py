"""`arena submit URL BOTDIR`: send a bot to a competition that `arena host` runs (docs/hosting.md).

The folder (a kit from `arena new-bot`, a Python plugin folder, or a folder with `run.sh`) is packed without its
build outputs and version control, and uploaded; the token comes from `--token-file` or `$ARENA_TOKEN`, never an
argument. With `--wait` it prints the submission's way (received, building, checking, playing N of M, its rank)
and exits 0 when it ranks, 1 when its build or checks failed; bad input or a refusal is exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from arena.cli.common import UsageError, cli_errors, console, err_console

__all__ = ["command"]


@cli_errors
def command(
    url: Annotated[str, typer.Argument(help="The competition's address (http://HOST:PORT/).", show_default=False)],
    folder: Annotated[Path, typer.Argument(help="The bot's folder.", show_default=False)],
    token_file: Annotated[
        Path | None,
        typer.Option("--token-file", help="A file holding your token (default: $ARENA_TOKEN).", show_default=False),
    ] = None,
    wait: Annotated[bool, typer.Option("--wait", help="Follow the submission to its end.")] = False,
) -> None:
    from arena.host.client import ClientError, ServerError, follow, read_token, upload

    try:
        token = read_token(token_file)
        sent = upload(url, folder, token)
    except ClientError as error:
        raise UsageError(str(error)) from None
    except ServerError as error:
        err_console.print(Text(f"error: {error}"), soft_wrap=True)
        raise typer.Exit(3) from None
    again = " (this archive was submitted before: the same submission)" if sent.duplicate else ""
    console.print(Text(f"submission {sent.id}: {sent.url}{again}"), soft_wrap=True)
    if not wait:
        return
    try:
        data = follow(url, sent.id, token, lambda line: console.print(Text(line), soft_wrap=True))
    except ClientError as error:
        raise UsageError(str(error)) from None
    except ServerError as error:
        err_console.print(Text(f"error: {error}"), soft_wrap=True)
        raise typer.Exit(3) from None
    except KeyboardInterrupt:
        err_console.print("stopped following; the submission goes on at the server", highlight=False)
        raise typer.Exit(130) from None
    if data["state"] != "ranked":
        raise typer.Exit(1)
