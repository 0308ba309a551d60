"""The ``[host]`` table of a competition file: what ``arena host`` needs beyond what ``arena compete`` reads.

A hosted competition takes its entrants from people who submit (``arena entrant add``, or sign-up with the
invitation code) rather than from ``[[entrants]]``; it plays every submission on two board sets, the file's
``[boards]`` (public: results and replays shown while it runs) and a private set of ``private_count`` boards of
the same size and rule whose seed the server draws and keeps secret until the deadline. The limits below are
each a wall against one kind of abuse; docs/hosting.md says which.
"""

from __future__ import annotations

import datetime as dt
import ipaddress

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["HostSpec"]


class HostSpec(BaseModel):
    """``[host]``: the deadline, the private board set's size, and the limits on what entrants send."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: When submissions stop and the private leaderboard and seed are revealed (a TOML date-time; without an
    #: offset it is UTC). None: only ``arena host FILE --close`` closes it.
    deadline: dt.datetime | None = None
    #: Boards of the private set (same size and first-click rule as ``[boards]``). None: as many as ``[boards]``.
    private_count: int | None = Field(default=None, ge=1, le=1_000_000)
    #: Submissions an entrant may make in 24 hours (a rolling day).
    per_day: int = Field(default=20, ge=1, le=10_000)
    #: Bytes of the uploaded archive (compressed), in MiB.
    max_archive_mb: float = Field(default=20.0, gt=0, le=1024)
    #: Files and folders in one archive.
    max_files: int = Field(default=2000, ge=1, le=1_000_000)
    #: Bytes of the archive unpacked, in MiB: what a zip bomb would blow up.
    max_unpacked_mb: float = Field(default=200.0, gt=0, le=16384)
    #: Seconds a build may take.
    build_time: float = Field(default=600.0, gt=0, le=86_400)
    #: A code people type to sign up as a new entrant (a class's enrolment key); None: the organizer adds
    #: every entrant with ``arena entrant add``.
    invitation: str | None = Field(default=None, min_length=8, max_length=200)
    #: The reverse proxies in front of the server (addresses or networks: ``["127.0.0.1"]``). A request from one of
    #: them is taken to come from the address its ``X-Forwarded-For`` names (and its scheme from
    #: ``X-Forwarded-Proto``); from anyone else those headers are ignored. Empty (the default): every request is
    #: its peer's, so nobody can choose the address the throttle counts wrong tokens against.
    trusted_proxies: tuple[str, ...] = ()

    @field_validator("deadline")
    @classmethod
    def _utc(cls, value: dt.datetime | None) -> dt.datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for item in value:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(
                    f'{item!r} is not an address or network (name the proxy\'s own address: "127.0.0.1"; '
                    "trusting every address would let anyone choose the address they are counted as)"
                ) from None
        return value

    @property
    def max_archive_bytes(self) -> int:
        return int(self.max_archive_mb * 1024 * 1024)

    @property
    def max_unpacked_bytes(self) -> int:
        return int(self.max_unpacked_mb * 1024 * 1024)
