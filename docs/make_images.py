"""Regenerate the pictures of docs/dirty-propagation.md and docs/viewer.md with sgview.

    .venv/bin/python docs/make_images.py                  # writes docs/images/*.png, .gif
    .venv/bin/python docs/make_images.py --out /tmp/imgs --size 640x360

Each picture is one headless `sgview` run of a bundled scene, replaying the touches its
file scripts (docs/semantics.md examples A and B) with the motion off, and saving the frame of
one touch: the overlay shows the glow in the view, the tree's flags, the selected node
and why it is dirty, the counters and the log. The same log is printed (``--log``) and
written beside the picture as ``NAME.log``, so the page can show it as text.

The pictures of docs/viewer.md (`STYLE_SHOTS`) show the three ways the view can show each
frame's work (``--glow``) on solar_system, where every node moves every frame;
`PENDING_SHOT` the pending look of a paused touch, before the step; `HOLD_SHOT`, for
docs/getting-started.md, a value edited while paused with hold edits on, before the step.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent

#: (picture name, scene file, frame of the touch, node selected, what it shows).
SHOTS = [
    ("chain-touch-obj3", "chain5.toml", 30, "Obj5", "touch(Obj3)"),
    ("chain-touch-obj4", "chain5.toml", 90, "Obj5", "touch(Obj4)"),
    ("tree-touch-obj2", "tree10.toml", 60, "Obj9", "touch(Obj2)"),
    ("tree-touch-obj3", "tree10.toml", 120, "Obj10", "touch(Obj3)"),
    ("tree-touch-obj4", "tree10.toml", 180, "Obj7", "touch(Obj4)"),
    ("tree-touch-obj5", "tree10.toml", 240, "Obj9", "touch(Obj5)"),
]

#: (picture name, scene file, frames, --glow style): docs/viewer.md's glow styles.
STYLE_SHOTS = [
    ("solar-glow-fill", "solar_system.toml", 150, "fill"),
    ("solar-glow-rim", "solar_system.toml", 150, "rim"),
    ("solar-glow-heat", "solar_system.toml", 150, "heat"),
]


#: The teaching GIF of docs/viewer.md: tree10, Obj2 touched at frame 10 (an even frame,
#: which a GIF keeps all the same), with the flags, counters and totals: the command.
TEACHING_GIF = (
    "tree10-touch.gif",
    ["tree10", "--headless", "--frames", "40", "--touch", "Obj2@10", "--size", "960x540"],
)


#: docs/viewer.md's picture of the pending look: tree10 paused, Obj2 selected and touched
#: (T), drawn before the step executes the marks.
PENDING_SHOT = (
    "tree10-pending.png",
    ["tree10", "--headless", "--still", "--select", "Obj2", "--keys", "Space@3,T@4",
     "--frames", "6", "--size", "960x540"],
)  # fmt: skip


#: docs/getting-started.md's picture of a value that waits: tree10 paused, hold edits on
#: (W), Obj2 moved up by K: its new value shown, it and its subtree pending, before the step.
HOLD_SHOT = (
    "hold-edit-pending.png",
    ["tree10", "--headless", "--still", "--select", "Obj2", "--keys", "Space@3,W@4,K@5",
     "--frames", "7", "--size", "960x540"],
)  # fmt: skip


def make(out: Path, size: str = "1120x630") -> dict[str, list[str]]:
    """Write every picture (and its .log) into `out`; return {name: log lines of the
    pictured frame}."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from viewer.cli.main import main

    out.mkdir(parents=True, exist_ok=True)
    logs: dict[str, list[str]] = {}
    for name, scene, frame, selected, _ in SHOTS:
        printed = io.StringIO()
        argv = [
            str(REPO / "scenes" / scene), "--headless", "--still", "--log",
            "--frames", str(frame), "--size", size, "--select", selected,
            "--screenshot", str(out / f"{name}.png"),
        ]  # fmt: skip
        with contextlib.redirect_stdout(printed):
            status = main(argv)
        if status != 0:
            raise SystemExit(f"sgview failed ({status}) on {' '.join(argv)}")
        lines = printed.getvalue().splitlines()
        header = f"# frame {frame}"
        block = lines[lines.index(header) + 1 :]
        block = block[: next((k for k, t in enumerate(block) if t.startswith("#")), len(block))]
        logs[name] = block
        (out / f"{name}.log").write_text("\n".join([header, *block]) + "\n", encoding="utf-8")
    for name, scene, frames, style in STYLE_SHOTS:
        argv = [
            str(REPO / "scenes" / scene), "--headless", "--frames", str(frames),
            "--size", size, "--glow", style, "--screenshot", str(out / f"{name}.png"),
        ]  # fmt: skip
        if main(argv) != 0:
            raise SystemExit(f"sgview failed on {' '.join(argv)}")
    name, argv = TEACHING_GIF
    if main([*argv, "--record", str(out / name)]) != 0:
        raise SystemExit(f"sgview failed on {' '.join(argv)}")
    for name, argv in (PENDING_SHOT, HOLD_SHOT):
        if main([*argv, "--screenshot", str(out / name)]) != 0:
            raise SystemExit(f"sgview failed on {' '.join(argv)}")
    return logs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DOCS / "images", help="output folder")
    parser.add_argument("--size", default="1120x630", help="picture size, WxH")
    args = parser.parse_args(argv)
    for name, lines in make(args.out, args.size).items():
        print(f"{args.out / name}.png: {len(lines)} log lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
