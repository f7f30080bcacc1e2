"""`python -m viewer`: the same as the `sgview` command."""

import signal
import sys


def _ended_early(signum: int, frame: object) -> None:
    # Ctrl+C or SIGTERM before `main` takes them over (`viewer.cli.interrupt`): only the
    # command's module is being imported, nothing has started, and on a busy machine that
    # can take most of a second. The run ends with the signal's status and no traceback.
    raise SystemExit(128 + signum)


for _signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_signum, _ended_early)

from viewer.cli.main import main  # noqa: E402  (after the handlers: see `_ended_early`)

sys.exit(main())
