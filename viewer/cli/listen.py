"""`sgview listen [HOST:PORT]`: start listening for programs and make the run that shows
them (docs/attach.md). `viewer.cli.main` parses the words after ``listen`` with
`viewer.cli.args.listen_parser` and runs what `prepare` returns like any scene's run.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from argparse import Namespace
from collections.abc import Callable
from typing import TextIO

from viewer.attach.program_source import ProgramSource
from viewer.attach.protocol import ProgramLimits
from viewer.attach.server import Listener
from viewer.content.scene import Scene
from viewer.errors import SgviewError
from viewer.scene.graph import SceneGraph
from viewer.text import printable
from viewer.window.run_options import RunOptions

__all__ = ["ListenUsageError", "prepare"]


class ListenUsageError(SgviewError, ValueError):
    """A listen argument that cannot work: one line, exit status 2."""


def split_address(address: str, host: str | None) -> tuple[str, int]:
    """``HOST:PORT`` (``--host`` replacing the host) as (host, port)."""
    given_host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ListenUsageError(
            f"expected HOST:PORT such as 127.0.0.1:7878, got {printable(address)!r}"
        )
    return (host or given_host.strip("[]") or "127.0.0.1"), int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def prepare(
    args: Namespace, err: TextIO | None = None
) -> tuple[Scene, RunOptions, Listener, Callable[[float | None], ProgramSource]]:
    """Listen where ``args`` ask (printing ``sgview: listening on HOST:PORT`` first on
    stderr) and return the waiting scene, the run's options, the listener (to close once
    the run ends) and what makes the run's frame source (`ProgramSource`, which in a headless
    run waits for each frame and ends once the program left or N frames were taken)."""
    host, port = split_address(args.address, args.host)
    token = args.token if args.token is not None else os.environ.get("SGVIEW_TOKEN", "")
    if not is_loopback(host) and not token:
        raise ListenUsageError(
            f"listening on {printable(host)}, beyond this machine, needs "
            "--token TOKEN (programs send it)"
        )
    if args.samples < 0:
        raise ListenUsageError(f"--samples must be 0 or more, got {args.samples}")
    limits = ProgramLimits(max_nodes=args.max_nodes, max_message_bytes=args.max_buffer_mb)
    listener = Listener(host, port, token=token, limits=limits, err=err)
    host, port = listener.start()
    shown_host = f"[{host}]" if ":" in host else host
    print(f"sgview: listening on {shown_host}:{port}", file=err or sys.stderr, flush=True)
    scene = Scene(SceneGraph(), title=f"waiting for programs on {shown_host}:{port}")
    frames = args.frames if args.frames is not None else (1 if args.headless else None)
    options = RunOptions(
        size=args.size,
        frames=frames,
        log=args.log,
        screenshot=args.screenshot,
        record=args.record,
        dump_world=args.dump_world,
        samples=args.samples,
        overlay=args.overlay,
        panels=args.panels,
        glow=args.glow or "fill",
        trace=args.trace,
    )

    def program_source(fixed_step: float | None) -> ProgramSource:
        # Headless, `--frames N` counts the program's frames taken (each logged under its
        # own `# frame` line), not redraws: a redraw shows every frame that came since the
        # last one, so a redraw count would make the log's length depend on the machine.
        return ProgramSource(
            scene,
            listener=listener,
            wait=args.headless,
            limit=frames if args.headless else None,
            log=args.log,
        )

    return scene, options, listener, program_source
