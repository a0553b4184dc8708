"""Run the fake GitHub server as a process.

    python -m tests.fakegithub [--host 127.0.0.1] [--port 0] [--seed seed.json]
                               [--state-out state.json] [--url-file url.txt]

Prints the base URL as the first line of stdout (and writes it to ``--url-file``), serves until
SIGTERM or SIGINT, then writes :meth:`FakeGitHub.dump_state` as JSON to ``--state-out``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from .server import FakeGitHub


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakegithub", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--seed", type=Path, help="JSON seed (see tests/fakegithub/state.py:load_seed)"
    )
    parser.add_argument("--state-out", type=Path, help="write the final state here on exit")
    parser.add_argument("--url-file", type=Path, help="also write the base URL here")
    parser.add_argument(
        "--prefix", default="", help="serve the API under this path, as GHES does (/api/v3)"
    )
    args = parser.parse_args(argv)

    fake = FakeGitHub(host=args.host, port=args.port, prefix=args.prefix)
    if args.seed is not None:
        fake.load_seed(json.loads(args.seed.read_text(encoding="utf-8")))
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    fake.start()
    print(fake.url, flush=True)
    if args.url_file is not None:
        args.url_file.write_text(fake.url + "\n", encoding="utf-8")
    try:
        while not stop.wait(0.2):
            pass
    finally:
        fake.stop()
        if args.state_out is not None:
            tmp = args.state_out.with_suffix(args.state_out.suffix + ".tmp")
            tmp.write_text(json.dumps(fake.dump_state(), indent=2, default=str), encoding="utf-8")
            tmp.replace(args.state_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
