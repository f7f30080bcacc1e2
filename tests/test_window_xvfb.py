"""A real window: `sgview` under Xvfb, driven with xdotool, photographed with xwd.

There is no window manager under a bare Xvfb, so the window sits at (0, 0) and keyboard
focus is given explicitly (`xdotool windowfocus --sync`). Skips, saying why, only when
Xvfb, xdotool or xwd is missing (.ci/run installs them); in CI that is a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from needs import missing, need_tools

REPO = Path(__file__).resolve().parents[1]
SCENE = REPO / "scenes" / "tree10.toml"
W, H = 720, 400
#: tree10.toml's colours: the root sphere and the first two levels of cubes.
BLUE, TEAL, GREEN = (76, 114, 176), (42, 157, 143), (85, 168, 104)
#: The overlay's panels cover the sides of the window; the scene is drawn between them.
VIEW = slice(230, W - 210)


@pytest.fixture(scope="module")
def display():
    """A private Xvfb server; yields its DISPLAY string (needs Xvfb, xdotool and xwd:
    apt-get install -y xvfb xdotool x11-apps)."""
    need_tools("Xvfb", "xdotool", "xwd")
    read_fd, write_fd = os.pipe()
    # -noreset: by default Xvfb resets itself when its last client leaves, and a viewer
    # that connects during that reset is refused ("Cannot connect"); one test's viewer
    # exiting just before the next one's starts hit it.
    server = subprocess.Popen(
        [
            "Xvfb",
            "-displayfd",
            str(write_fd),
            "-screen",
            "0",
            "800x600x24",
            "-nolisten",
            "tcp",
            "-noreset",
        ],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()  # written once the server accepts clients
    if not number:
        server.kill()
        missing("Xvfb did not start")
    yield f":{number}"
    server.terminate()
    server.wait(timeout=10)


def _sgview_command() -> list[str]:
    script = Path(sys.executable).with_name("sgview")
    return [str(script)] if script.exists() else [sys.executable, "-m", "viewer"]


#: Every wait below polls until its condition holds and gives up only after this long:
#: a guard against a hang, never a speed claim (a loaded machine must not fail a test).
PATIENCE = 90.0


def _x(display, *args, timeout=PATIENCE) -> str:
    env = {**os.environ, "DISPLAY": display}
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    return done.stdout.strip()


def _cold_note(line: str) -> bool:
    """One of the notes a first launch prints while numba compiles in the background."""
    return line.startswith(("sgview: first run:", "sgview: compiled loops ready after"))


def _wait_for(predicate, timeout, what):
    timeout = max(timeout, PATIENCE)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value is not None and value is not False and not (isinstance(value, str) and not value):
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def window_id(display) -> str:
    """The id of sgview's window once it exists (its title starts with "sgview")."""
    return _wait_for(
        lambda: _x(display, "xdotool", "search", "--name", "^sgview").split("\n")[0],
        60, "the sgview window",
    )  # fmt: skip


def read_xwd(data: bytes) -> np.ndarray:
    """An (h, w, 3) uint8 image from an xwd dump of a TrueColor screen (24 or 32 bits)."""
    header = np.frombuffer(data[:100], dtype=">u4").astype(np.int64)
    header_size, fmt, width, height = header[0], header[2], header[4], header[5]
    byte_order, bpp, bytes_per_line, ncolors = header[7], header[11], header[12], header[19]
    assert fmt == 2 and bpp in (24, 32), f"unsupported xwd layout: format {fmt}, {bpp} bits"
    nbytes = bpp // 8
    start = header_size + 12 * ncolors
    rows = np.frombuffer(data, dtype=np.uint8, count=height * bytes_per_line, offset=start)
    px = rows.reshape(height, bytes_per_line)[:, : width * nbytes].reshape(height, width, nbytes)
    # Each channel's byte: from its mask's lowest bit; byte order 0 is least significant first.
    lsb = [(int(mask) & -int(mask)).bit_length() - 1 for mask in header[14:17]]
    index = [b // 8 if byte_order == 0 else nbytes - 1 - b // 8 for b in lsb]
    return px[..., index]


def _grab(display) -> np.ndarray:
    env = {**os.environ, "DISPLAY": display}
    command = ["xwd", "-root", "-silent"]
    raw = subprocess.run(command, env=env, capture_output=True, timeout=PATIENCE)
    return read_xwd(raw.stdout)[:H, :W]


def _near(img: np.ndarray, rgb, cos_min=0.995) -> np.ndarray:
    """Mask of colourful pixels whose colour is a shade of `rgb` (lighting scales colours)."""
    img = img.astype(np.float64)
    colourful = img.max(axis=2) - img.min(axis=2) >= 40
    target = np.asarray(rgb, dtype=np.float64)
    cos = (img @ target) / (np.linalg.norm(img, axis=2) * np.linalg.norm(target) + 1e-9)
    return colourful & (cos >= cos_min)


def _solid_squares(mask: np.ndarray, side: int) -> int:
    """How many side x side windows of `mask` are entirely true (an integral image)."""
    total = np.pad(mask.astype(np.int64), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    window = (
        total[side:, side:] - total[:-side, side:] - total[side:, :-side] + total[:-side, :-side]
    )
    return int((window == side * side).sum())


def test_window_shows_the_scene_and_answers_keys_and_clicks(display, tmp_path):
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [*_sgview_command(), str(SCENE), "--size", f"{W}x{H}", "--screenshot", "last.png"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wid = window_id(display)
        _x(display, "xdotool", "windowfocus", "--sync", wid)
        # Pause the motion so that what we click stays where we saw it.
        _x(display, "xdotool", "key", "--window", wid, "space")
        img = _wait_for(
            lambda: (lambda i: i if _near(i, TEAL).sum() > 100 else None)(_grab(display)),
            30, "the scene to be drawn",
        )  # fmt: skip
        # The screen shows the scene: the colours of the tree's levels, and the background
        # gradient (lighter at the top), between the overlay's panels.
        img = img[:, VIEW]
        for name, rgb in (("blue", BLUE), ("teal", TEAL), ("green", GREEN)):
            assert _near(img, rgb).sum() > 30, f"no {name} node on screen"
        assert img[2].mean() > img[-3].mean()

        # P saves a screenshot into the working folder and prints its path.
        _x(display, "xdotool", "key", "--window", wid, "p")
        shot = _wait_for(lambda: next(tmp_path.glob("sgview-*.png"), None), 20, "P screenshot")
        from PIL import Image

        saved = np.asarray(Image.open(shot).convert("RGB"))
        assert saved.shape == (H, W, 3)
        assert _near(saved, TEAL).sum() > 100

        # A click on the blue root sphere selects it: the title names it, and an outline
        # (yellow) appears on screen.
        ys, xs = np.nonzero(_near(img, BLUE))
        x, y = int(np.median(xs)) + VIEW.start, int(np.median(ys))
        _x(display, "xdotool", "mousemove", "--window", wid, str(x), str(y), "click", "1")
        title = _wait_for(
            lambda: (lambda t: t if "Obj1" in t else None)(
                _x(display, "xdotool", "getwindowname", wid)
            ),
            10, "the title to name the selected node",
        )  # fmt: skip
        assert title.startswith("sgview")
        _wait_for(lambda: bool(_near(_grab(display), (255, 242, 89)).sum() > 20), 10,
                  "the selection outline")  # fmt: skip

        # Esc quits cleanly, and --screenshot gets the last picture (selection included).
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0, proc.stderr.read()
        err = proc.stderr.read()  # as every file written: stdout stays the --log
        assert f"sgview: screenshot saved: {shot}" in err
        last = np.asarray(Image.open(tmp_path / "last.png").convert("RGB"))
        assert _near(last, TEAL).sum() > 100 and _near(last, (255, 242, 89)).sum() > 20
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _teal_cube(img: np.ndarray) -> tuple[int, int]:
    """Window position of the biggest teal cube in the view (columns clustered by gaps)."""
    ys, xs = np.nonzero(_near(img[:, VIEW], TEAL))
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    groups = np.split(np.arange(len(xs)), np.flatnonzero(np.diff(xs) > 6) + 1)
    best = max(groups, key=len)
    return int(np.median(xs[best])) + VIEW.start, int(np.median(ys[best]))


def test_overlay_keys_pause_step_and_touch(display, tmp_path):
    """Space pauses (the picture stops changing), '.' simulates exactly one frame, T
    touches the node selected by a click: at once, before any step, it shows in the
    pending look (striped); after '.', it glows red and the log says so."""
    import threading

    command = _sgview_command()
    env = {**os.environ, "DISPLAY": display, "PYTHONUNBUFFERED": "1"}
    if command[0] == sys.executable:  # no installed sgview: run this checkout
        env["PYTHONPATH"] = str(REPO)
    else:  # the sgview that pip installed the way the README says (CI: a fresh venv)
        env.pop("PYTHONPATH", None)
    proc = subprocess.Popen(
        [*command, "--size", f"{W}x{H}", "--log"],  # the built-in scene: it moves
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(line.rstrip("\n") for line in iter(proc.stdout.readline, ""))
    )
    reader.start()

    def frames_logged() -> int:
        return sum(1 for line in list(lines) if line.startswith("# frame"))

    def settled_count() -> int:
        while True:
            before = frames_logged()
            time.sleep(0.3)
            if frames_logged() == before:
                return before

    try:
        wid = window_id(display)
        _x(display, "xdotool", "windowfocus", "--sync", wid)
        _wait_for(lambda: _near(_grab(display)[:, VIEW], TEAL).sum() > 100, 30, "the scene")
        _wait_for(lambda: frames_logged() > 3, 10, "the motion to be logged")

        # Tab hides the panels (the view shows through where they were) and shows them.
        def strip() -> np.ndarray:  # the top of the left panel's area (title, first rows)
            return _grab(display)[0:60, 0 : W // 8].astype(np.float64)

        def unlike(a, b) -> float:
            return float(np.abs(a - b).mean())

        with_panel = strip()
        _x(display, "xdotool", "key", "--window", wid, "Tab")
        _wait_for(lambda: unlike(strip(), with_panel) > 10, 10, "Tab to hide the panels")
        _x(display, "xdotool", "key", "--window", wid, "Tab")
        _wait_for(lambda: unlike(strip(), with_panel) < 4, 10, "Tab to show the panels")

        # Space: paused, the same picture frame after frame, nothing more logged.
        _x(display, "xdotool", "key", "--window", wid, "space")
        count = settled_count()
        paused = _grab(display)
        time.sleep(0.4)
        assert np.array_equal(paused, _grab(display))
        assert frames_logged() == count

        # '.': exactly one more frame; then still again.
        _x(display, "xdotool", "key", "--window", wid, "period")
        _wait_for(lambda: frames_logged() == count + 1, 10, "one stepped frame")
        assert settled_count() == count + 1
        stepped = _grab(display)
        assert not np.array_equal(paused, stepped)
        time.sleep(0.3)
        assert np.array_equal(stepped, _grab(display))

        # Click a cube (held a moment), T, '.': that node's local matrix is recomputed.
        x, y = _teal_cube(stepped)
        _x(display, "xdotool", "mousemove", "--window", wid, str(x), str(y))
        _x(display, "xdotool", "mousedown", "1")
        time.sleep(0.2)
        _x(display, "xdotool", "mouseup", "1")
        title = _wait_for(
            lambda: (lambda t: t if "— Obj" in t else None)(
                _x(display, "xdotool", "getwindowname", wid)
            ),
            10, "the title to name the selected node",
        )  # fmt: skip
        name = title.rsplit("— ", 1)[1]
        _x(display, "xdotool", "key", "--window", wid, "t")

        # Before the step: nothing executed (no frame logged), but the marks show at
        # once: the touched node in the pending look, red stripes over its own colour.
        def pending_look() -> bool:
            patch = _grab(display)[y - 6 : y + 6, x - 6 : x + 6].reshape(-1, 3).astype(int)
            red = (patch[:, 0] > 170) & (patch[:, 1] < 90) & (patch[:, 2] < 90)
            return 0.2 < red.mean() < 0.8

        _wait_for(pending_look, 10, f"{name} in the pending look before the step")
        assert frames_logged() == count + 1 and f"*Update Local : {name}*" not in lines
        _x(display, "xdotool", "key", "--window", wid, "period")
        _wait_for(lambda: f"*Update Local : {name}*" in lines, 10, f"{name} in the log")
        assert settled_count() == count + 2
        time.sleep(0.3)
        touched = _grab(display)
        r, g, b = touched[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(axis=0)
        assert r > 170 and g < 90 and b < 90, f"{name} does not glow red: {(r, g, b)}"
        # Its subtree followed: world lines in the log, and orange glow on screen.
        block = lines[lines.index(f"*Update Local : {name}*") :]
        assert any(line.startswith("=Update World : ") and name not in line for line in block)
        # Orange *nodes*: the glowing parent-child lines are orange too, but only
        # GLOW_LINE_PX wide, so they cannot fill a solid 9x9 square as a glowing box does.
        orange = _near(touched[:, VIEW], (255, 143, 0), cos_min=0.99)
        assert _solid_squares(orange, 9) > 0, "no orange node (only lines, if anything)"
        time.sleep(0.6)  # paused: the glow does not fade
        assert np.array_equal(touched, _grab(display))

        # Space again: running.
        _x(display, "xdotool", "key", "--window", wid, "space")
        _wait_for(lambda: frames_logged() > count + 5, 10, "the frames to run again")
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0, proc.stderr.read()
        # A clean session prints nothing on stderr but, on the installed package's very
        # first launch, the cold start's notes (viewer/scene/coldstart.py).
        errors = [line for line in proc.stderr.read().splitlines() if not _cold_note(line)]
        assert errors == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)


def test_help_opens_on_f1_and_question_mark_and_reads_in_rows(display, tmp_path):
    """The start hint names the help key; F1 opens a window of the keys whose text runs in
    rows across it (not one letter per line); ? closes it, and the picture is back."""
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [*_sgview_command(), str(SCENE), "--size", f"{W}x{H}", "--still"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wid = window_id(display)
        _x(display, "xdotool", "windowfocus", "--sync", wid)
        start = _wait_for(
            lambda: (lambda i: i if _near(i, TEAL).sum() > 100 else None)(_grab(display)),
            30, "the scene to be drawn",
        )  # fmt: skip
        # The hint: a line of yellow text at the bottom middle.
        hint = _near(start[H - 40 :, VIEW], (255, 230, 115), cos_min=0.99)
        assert hint.sum() > 50, "no start hint"

        def text_rows(img) -> list[int]:
            """Widths of the rows of light text in the middle of the picture."""
            light = img[40 : H - 40, 120 : W - 120].min(axis=2) > 170
            rows = np.flatnonzero(light.any(axis=1))
            lines = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)
            return [int(np.ptp(np.flatnonzero(light[line].any(axis=0)))) for line in lines]

        closed = text_rows(start)
        _x(display, "xdotool", "key", "--window", wid, "F1")

        def help_shown():
            img = _grab(display)
            rows = text_rows(img)
            return img if len(rows) >= 10 and np.median(rows) > 150 else None

        # Lines of text as wide as a sentence, ten or more of them (one letter per line
        # would give many rows a few pixels wide).
        shown = _wait_for(help_shown, 10, "the help window, in rows of text")
        from PIL import Image

        Image.fromarray(shown).save(tmp_path / "help.png")
        _x(display, "xdotool", "key", "--window", wid, "question")
        _wait_for(lambda: len(text_rows(_grab(display))) <= len(closed) + 1, 10,
                  "? to close the help")  # fmt: skip
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_zero_restarts_and_replays_the_script_and_bracket_jumps_back(display, tmp_path):
    """With real keys: 0 restarts tree10 from frame 0, so its scripted touch of frame 60
    is logged again, line for line; [ shows the last touch again (red in the view) once
    its glow has faded."""
    import threading

    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [*_sgview_command(), str(SCENE), "--size", f"{W}x{H}", "--log"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(line.rstrip("\n") for line in iter(proc.stdout.readline, ""))
    )
    reader.start()

    def block(start: int) -> list[str]:
        rest = lines[start + 1 :]
        return rest[: next((k for k, t in enumerate(rest) if t.startswith("#")), len(rest))]

    def red_pixels() -> int:
        img = _grab(display)[:, VIEW].astype(int)
        return int(((img[..., 0] > 170) & (img[..., 1] < 90) & (img[..., 2] < 90)).sum())

    try:
        wid = window_id(display)
        _x(display, "xdotool", "windowfocus", "--sync", wid)
        _wait_for(lambda: "# frame 60" in lines, 60, "the scripted touch of frame 60")
        first = block(lines.index("# frame 60"))
        assert first[0] == "*Update Local : Obj2*"
        _x(display, "xdotool", "key", "--window", wid, "0")
        _wait_for(lambda: lines.count("# frame 60") == 2, 60, "frame 60 again after 0")
        second = len(lines) - 1 - lines[::-1].index("# frame 60")
        _wait_for(lambda: len(block(second)) == len(first), 10, "the replayed block")
        assert block(second) == first
        # Paused once the glow of the last scripted touch (frame 300) has faded: tree10 has
        # no other motion, so the view is quiet and [ shows that touch again. Pausing
        # between two touches instead could land on a fresh glow, as bright as ['s.
        _wait_for(lambda: "# frame 300" in lines[second:], 60, "the last touch replayed")
        _wait_for(lambda: red_pixels() < 20, 30, "the glow to fade")
        _x(display, "xdotool", "key", "--window", wid, "space")
        time.sleep(0.3)
        quiet = red_pixels()
        _x(display, "xdotool", "key", "--window", wid, "bracketleft")
        _wait_for(lambda: red_pixels() > quiet + 100, 10, "[ to show the touch again")
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
