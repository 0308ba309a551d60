"""What building a kit in the sandbox costs: each kit of ``arena new-bot`` built from scratch by ``build_bot`` in the
sandbox and outside it (``SandboxMode.OFF``, what ``arena compete --build-outside-sandbox`` does), alternating which
goes first (a shared machine's load drifts), ``--rounds`` times, the best of each.

    python benchmarks/build_sandbox.py [--languages python,javascript,cpp,rust,java] [--rounds 1]

A kit whose toolchain is missing is left out, saying why. Results: ``benchmarks/results/build_sandbox.json``, with
the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from arena.isolation.builds.build import build_bot
from arena.kits import new_bot
from arena.kits.toolchains import missing_toolchain
from arena.limits import SandboxMode

RESULTS = Path(__file__).parent / "results" / "build_sandbox.json"
LANGUAGES = ("python", "javascript", "cpp", "rust", "java")


def build_once(language: str, mode: SandboxMode, folder: Path) -> float:
    """Seconds to build a freshly written ``language`` kit in ``folder`` under ``mode``; raises if it fails."""
    new_bot("kit", language, folder)
    result = build_bot(folder, sandbox=mode)
    if not result.ok:
        raise SystemExit(f"the {language} kit did not build ({mode.value}): {result.summary()}\n{result.log}")
    return result.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    data: dict[str, Any] = {"rounds": args.rounds, "kits": {}, "left_out": {}}
    print(f"{'kit':<12}{'sandbox s':>12}{'outside s':>12}{'difference':>12}")
    for language in args.languages.split(","):
        reason = missing_toolchain(language)
        if reason:
            data["left_out"][language] = reason
            print(f"{language:<12}left out: {reason}")
            continue
        times: dict[str, list[float]] = {"sandbox": [], "outside": []}
        for index in range(args.rounds):
            order = [SandboxMode.REQUIRE, SandboxMode.OFF]
            for mode in order if index % 2 == 0 else order[::-1]:
                with tempfile.TemporaryDirectory() as temp:
                    seconds = build_once(language, mode, Path(temp) / "kit")
                times["sandbox" if mode is SandboxMode.REQUIRE else "outside"].append(seconds)
        best = {key: min(values) for key, values in times.items()}
        data["kits"][language] = {**{f"{k}_s": round(v, 2) for k, v in best.items()}, "all": times}
        print(
            f"{language:<12}{best['sandbox']:>12.2f}{best['outside']:>12.2f}{best['sandbox'] - best['outside']:>+12.2f}"
        )
    data["load"] = os.getloadavg()[0]
    print(f"load average {data['load']:.2f}")
    RESULTS.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
