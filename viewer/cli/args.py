"""The `sgview` command line's arguments: the parser, its value types and its help.

`OPTIONS` lists every argument once, in --help order, with its argparse settings, so the
parser is one loop over a table. A bad value is refused by its type function with
argparse's own one-line usage error (exit status 2); what the values mean for a run is
checked in `viewer.cli.main`, against the scene.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from viewer import __version__
from viewer.io.limits import MAX_BUFFER_BYTES, MAX_JSON_BYTES, MAX_NODES
from viewer.text import one_line

__all__ = ["LISTEN_OPTIONS", "OPTIONS", "PROG", "build_parser", "listen_parser"]

PROG = "sgview"


def _size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m or int(m[1]) < 1 or int(m[2]) < 1:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x720, got {text!r}")
    return int(m[1]), int(m[2])


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _exposure(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1e6:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def _megabytes(text: str) -> int:
    """--max-buffer-mb: a positive number of MiB, returned in bytes."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0.0 < value < 2.0**40:
        raise argparse.ArgumentTypeError(f"expected a positive number of megabytes, got {text!r}")
    return max(1, int(value * 1024 * 1024))


def _touch(text: str) -> tuple[str, int]:
    name, sep, frame = text.rpartition("@")
    if not sep:
        return text, 1
    if not name or not frame.isdigit() or int(frame) < 1:
        raise argparse.ArgumentTypeError(f"expected NAME or NAME@FRAME (FRAME >= 1), got {text!r}")
    return name, int(frame)


#: The flags a run may repeat thousands of times, and what turns one value into an item.
REPEATED: dict[str, Callable[[str], str | tuple[str, int]]] = {"--click": str, "--touch": _touch}

#: Every argument, in --help order: its names (or positional name), then its settings.
OPTIONS: tuple[tuple[str, dict], ...] = (
    ("--version", {"action": "version", "version": f"%(prog)s {__version__}"}),
    ("--list-scenes", {
        "action": "store_true",
        "help": "list the bundled scenes (open one by name: sgview solar_system) and exit",
    }),
    ("scene", {
        "nargs": "?", "metavar": "SCENE",
        "help": "scene file (.toml, .gltf, .glb; OpenUSD .usda, .usdc, .usdz with the usd "
        "extra); default: the built-in ten-node tree",
    }),
    ("--generate", {
        "metavar": "SPEC",
        "help": "generate a scene instead of loading one: chain:N, balanced:N or random:N",
    }),
    ("--headless", {
        "action": "store_true", "help": "render without a window (EGL), then exit; see --frames",
    }),
    ("--frames", {
        "type": _positive, "metavar": "N",
        "help": "stop after N frames drawn (headless default: 1; window default: run until "
        "closed)",
    }),
    ("--size", {
        "type": _size, "default": (1280, 720), "metavar": "WxH",
        "help": "image / window size in pixels (default: 1280x720)",
    }),
    ("--screenshot", {"type": Path, "metavar": "PNG", "help": "write the last frame as a PNG"}),
    ("--record", {
        "type": Path, "metavar": "OUT",
        "help": "write every frame to OUT.mp4 (60 frames/s) or OUT.gif (30 frames/s: "
        "every second frame)",
    }),
    ("--log", {
        "action": "store_true",
        "help": "print '# frame N' and that frame's update log for each frame that recomputed",
    }),
    ("--touch", {
        "type": _touch, "action": "append", "default": [], "metavar": "NAME[@FRAME]",
        "help": "touch node NAME at the start of FRAME (default 1); repeatable",
    }),
    ("--still", {"action": "store_true", "help": "no scene motion and no glTF animation"}),
    ("--keys", {
        "metavar": "SPEC",
        "help": "scripted keys, e.g. 'L@1-80,T@90,space@100,.@101': a key of the table below "
        "pressed before frame F (KEY@F) or held from F to G (KEY@F-G); frames count redraws",
    }),
    ("--click", {
        "action": "append", "default": [], "metavar": "X,Y@F",
        "help": "left click at window pixel X,Y (from the top-left) before frame F, "
        "selecting what is there as a mouse click does; repeatable",
    }),
    ("--trace", {
        "type": Path, "metavar": "OUT.json",
        "help": "write a Chrome Trace Event file (open it in ui.perfetto.dev): per frame the "
        "time of each phase, the counters and the recomputed nodes",
    }),
    ("--animation", {
        "metavar": "NAME|INDEX|none",
        "help": "the glTF animation to play (default: the file's first); none: no animation",
    }),
    ("--camera", {
        "metavar": "INDEX|NAME",
        "help": "look through a camera of the glTF file (its index or name; the C key "
        "cycles through them and back to the orbit camera)",
    }),
    ("--select", {
        "metavar": "NAME",
        "help": "select node NAME at the start (outlined; the panel shows its values)",
    }),
    ("--no-overlay", {
        "dest": "overlay", "action": "store_false",
        "help": "the model and nothing else: no glow, names, panels, grid, axes, lines or "
        "joint markers (also headless)",
    }),
    ("--no-panels", {
        "dest": "panels", "action": "store_false",
        "help": "the overlay without its panels: glow, names, grid and lines over the whole "
        "picture (Tab shows the panels)",
    }),
    ("--glow", {
        "choices": ("fill", "rim", "heat"), "default": None,
        "help": "how the overlay shows each frame's work: fill (tint the recomputed nodes), "
        "rim (light their outline, keep their colours) or heat (colour every node by how "
        "often it was recomputed over the last 2 s); default: rim for a glTF or OpenUSD "
        "file, whose materials it leaves readable, fill otherwise",
    }),
    ("--tone-mapping", {
        "choices": ("neutral", "aces", "none"), "default": "neutral",
        "help": "how glTF materials' light becomes screen colours: neutral (Khronos PBR "
        "Neutral, default, as the glTF reference viewers), aces (ACES filmic) or none "
        "(clamped)",
    }),
    ("--exposure", {
        "type": _exposure, "default": 1.0, "metavar": "X",
        "help": "multiply glTF materials' light by X before tone mapping (default: 1)",
    }),
    ("--environment", {
        "choices": ("room", "none"), "default": "room",
        "help": "the light around glTF models: room (a neutral room prefiltered for roughness, "
        "as three.js's RoomEnvironment; default) or none (the file's lights, or one key light)",
    }),
    ("--variant", {
        "metavar": "NAME",
        "help": "draw a glTF file's KHR_materials_variants variant NAME (a product's colour "
        "option; default: the file's default materials)",
    }),
    ("--dump-world", {
        "type": Path, "metavar": "PATH",
        "help": "after the last frame, write {name: 4x4 world matrix} as JSON "
        "(row-major nested lists, column-vector convention)",
    }),
    ("--save", {
        "type": Path, "metavar": "OUT.toml|OUT.glb|OUT.gltf|OUT.usda|OUT.usdc|OUT.usdz",
        "help": "write the scene to OUT and exit: the native TOML format, glTF 2.0 for "
        ".glb/.gltf (everything loaded is kept: nodes, meshes, materials, textures, skins, "
        "animations, cameras, lights; motions become an animation; a .gltf gets OUT.bin "
        "and its images as files beside it), or OpenUSD with the usd extra (the scene as it "
        "stands: prims, transforms, built-in meshes and colours; the animation as time "
        "samples); any other suffix is refused",
    }),
    ("--edit-layer", {
        "type": Path, "metavar": "FILE.usda",
        "help": "for an OpenUSD stage: Ctrl+S writes the edits into FILE, a layer of overs "
        "stacked as the stage's strongest sublayer (made when missing), instead of into the "
        "root layer; the root layer gets only that subLayers entry",
    }),
    ("--gltf-embed", {
        "action": "store_true",
        "help": "with --save OUT.gltf: put the binary data and images inside the .gltf as "
        "data URIs (one file) instead of files beside it",
    }),
    ("--max-nodes", {
        "type": _positive, "default": MAX_NODES, "metavar": "N",
        "help": f"refuse scenes with more than N nodes, glTF includes counted "
        f"(default: {MAX_NODES:,})",
    }),
    ("--max-buffer-mb", {
        "type": _megabytes, "default": MAX_BUFFER_BYTES, "metavar": "MB",
        "help": f"refuse glTF files or buffers larger than MB megabytes, or more vertex and "
        f"keyframe data in all the scene's glTF files (default: {MAX_BUFFER_BYTES >> 20})",
    }),
    ("--max-json-mb", {
        "type": _megabytes, "default": MAX_JSON_BYTES, "metavar": "MB",
        "help": f"refuse more than MB megabytes of glTF JSON in all the scene's glTF files "
        f"(default: {MAX_JSON_BYTES >> 20})",
    }),
    ("--backend", {"metavar": "NAME", "help": "GL context backend (headless default: egl)"}),
    ("--samples", {
        "type": int, "default": 4, "metavar": "N",
        "help": "multisampling samples, 0 to disable (default: 4)",
    }),
)  # fmt: skip


def _epilog() -> str:
    from viewer.keys.controls import KEY_HELP, MOUSE_HELP

    width = max(len(k) for k, _ in KEY_HELP + MOUSE_HELP) + 2
    lines = ["window controls:"]
    lines += [f"  {k:<{width}}{what}" for k, what in MOUSE_HELP + KEY_HELP]
    lines += [
        "",
        "examples:",
        "  sgview                                   the built-in ten-node tree",
        "  sgview tree10                            a bundled scene by name (--list-scenes)",
        "  sgview path/to/model.glb                 a scene file (.toml, .gltf, .glb, .usd*)",
        "  sgview chain5 --headless --frames 1 --still --touch Obj3 --log",
        "  sgview --generate balanced:1000 --headless --frames 60 --record out.gif",
        "  sgview listen                            watch running programs (sgview listen --help)",
    ]
    return "\n".join(lines)


class _OneLineParser(argparse.ArgumentParser):
    """An argument mistake is one line on stderr (exit status 2), like every other
    mistake sgview reports, instead of argparse's usage block."""

    def __init__(self, *args, **kwargs) -> None:
        #: The `REPEATED` flags this parser has (`sgview listen` takes none of them); set
        #: before argparse's own set-up, which adds --help.
        self.repeated: set[str] = set()
        super().__init__(*args, **kwargs)

    def add_argument(self, *names, **settings):
        self.repeated |= {name for name in names if name in REPEATED}
        return super().add_argument(*names, **settings)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} (sgview --help lists the options)\n")

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, with the repeatable flags (`REPEATED`) taken out of `args` in one
        pass first: argparse looks for the next option among all of them at every one,
        so 20,000 ``--click`` flags took 35 s to parse (quadratic); now linear."""
        args = list(sys.argv[1:] if args is None else args)
        taken: dict[str, list] = {flag: [] for flag in self.repeated}
        rest: list[str] = []
        i = 0
        while i < len(args):
            token = args[i]
            flag, eq, value = token.partition("=")
            if token == "--":  # what follows is positional
                rest += args[i:]
                break
            if eq and flag in taken:
                taken[flag].append(value)
            elif token in taken and i + 1 < len(args) and not args[i + 1].startswith("-"):
                taken[token].append(args[i + 1])
                i += 1
            else:  # left to argparse (a missing value, an abbreviated flag...)
                rest.append(token)
            i += 1
        namespace, extras = super().parse_known_args(rest, namespace)
        for flag, values in taken.items():
            convert = REPEATED[flag]
            items = getattr(namespace, flag[2:])
            try:
                setattr(namespace, flag[2:], items + [convert(v) for v in values])
            except argparse.ArgumentTypeError as exc:
                self.error(f"argument {flag}: {exc}")
        return namespace, extras


def build_parser() -> argparse.ArgumentParser:
    """The `sgview` parser: `OPTIONS`, with the window controls and examples as epilog."""
    parser = _OneLineParser(
        prog=PROG,
        description="Show a scene graph and the transform updates flowing through it.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for name, settings in OPTIONS:
        parser.add_argument(name, **settings)
    return parser


#: `sgview listen`'s own arguments; it also takes the `OPTIONS` of `LISTEN_SHARED`.
LISTEN_OPTIONS: tuple[tuple[str, dict], ...] = (
    ("address", {
        "nargs": "?", "default": "127.0.0.1:7878", "metavar": "HOST:PORT",
        "help": "where programs connect (default: 127.0.0.1:7878; port 0: any free port)",
    }),
    ("--host", {
        "metavar": "HOST",
        "help": "listen on HOST instead (beyond this machine: needs --token)",
    }),
    ("--token", {
        "metavar": "TOKEN",
        "help": "a secret every program must send (default: $SGVIEW_TOKEN); required "
        "when listening beyond the loopback address",
    }),
)  # fmt: skip
LISTEN_SHARED = ("--headless", "--frames", "--size", "--screenshot", "--record", "--log",
                 "--trace", "--no-overlay", "--no-panels", "--glow", "--dump-world",
                 "--max-nodes", "--max-buffer-mb", "--backend", "--samples")  # fmt: skip


#: What the shared options mean for `sgview listen`, where that differs from a scene's run.
LISTEN_HELP = {
    "--frames": "headless: stop after N program frames received, each logged (a redraw "
    "shows all that came since the last one), or once the program left; window: after N "
    "redraws (default: headless 1, window until closed)",
    "--max-nodes": f"refuse a program's structure of more than N nodes (default: {MAX_NODES:,})",
    "--max-buffer-mb": "refuse a program's message larger than MB megabytes; each program's "
    f"inbox holds at most twice that (default: {MAX_BUFFER_BYTES >> 20})",
}


def listen_parser() -> argparse.ArgumentParser:
    """`sgview listen`: show the programs that connect (docs/attach.md)."""
    parser = _OneLineParser(
        prog=f"{PROG} listen",
        description="Wait for programs to connect (viewer.publish, the three.js publisher) "
        "and show their scene graphs' frames as they run.",
    )
    for name, settings in LISTEN_OPTIONS + tuple(o for o in OPTIONS if o[0] in LISTEN_SHARED):
        if name in LISTEN_HELP:
            settings = {**settings, "help": LISTEN_HELP[name]}
        parser.add_argument(name, **settings)
    return parser
