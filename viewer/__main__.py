"""`python -m viewer`, and the `sgview` command (`run`)."""

import signal
import sys


def _ended_early(signum: int, frame: object) -> None:
    # Ctrl+C or SIGTERM before `main` takes them over (`viewer.cli.interrupt`): only the
    # command's module is being imported, nothing has started, and on a busy machine that
    # can take most of a second. The run ends with the signal's status and no traceback.
    raise SystemExit(128 + signum)


def run() -> int:
    """The command's exit status; SIGINT and SIGTERM end it with 130 / 143 and no
    traceback from here on, also while the command's module is imported."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _ended_early)
    from viewer.cli.main import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
