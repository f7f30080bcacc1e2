"""Scripted input and --log linear in what they do (issue 36).

- The command line: argparse looks for the next option among all of them at every one,
  so 20,000 ``--click`` flags took 35 s to parse. The repeatable flags are taken out in
  one pass first; over generated argument lists the result equals plain argparse's,
  and argparse itself sees only the other flags, however many clicks there are.
- Clicks: a redraw's scripted clicks pick as one `select_at` each would, with the camera
  matrix and the node boxes computed once (generated clicks, compared with one by one).
- A headless run draws only the pictures someone sees (the last one, a recorded one, a
  traced one): a long --log run spent nearly all its time drawing pictures nobody saw;
  the log is the same.
"""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stdout

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.cli import args as cli_args
from viewer.cli.main import main

CLICK = st.builds(lambda x, y, f: f"{x},{y}@{f}", st.integers(0, 400), st.integers(0, 300),
                  st.integers(1, 9))  # fmt: skip
TOUCH = st.sampled_from(["Obj3", "Obj5@2", "A@1", "B@7"])
ITEM = st.one_of(
    st.tuples(st.just("--click"), CLICK),
    st.tuples(st.just("--touch"), TOUCH),
    CLICK.map(lambda c: ("--click=" + c,)),
    TOUCH.map(lambda t: ("--touch=" + t,)),
    st.just(("--log",)),
    st.just(("--frames", "3")),
    st.just(("--headless",)),
    st.just(("--keys", "T@2")),
)


def _plain_parser() -> argparse.ArgumentParser:
    """The same options through argparse alone: the oracle."""
    parser = argparse.ArgumentParser(prog="sgview", add_help=False)
    for name, settings_ in cli_args.OPTIONS:
        parser.add_argument(name, **settings_)
    return parser


@settings(max_examples=60, deadline=None)
@given(items=st.lists(ITEM, max_size=12), scene=st.sampled_from([[], ["tree10"]]))
def test_the_parse_equals_argparse_alone(items, scene):
    argv = [token for item in items for token in item] + scene
    assert vars(cli_args.build_parser().parse_args(argv)) == vars(_plain_parser().parse_args(argv))


def test_argparse_sees_only_the_other_flags(monkeypatch):
    seen = []
    real = argparse.ArgumentParser.parse_known_args

    def spy(self, args=None, namespace=None):
        seen.append(len(args))
        return real(self, args, namespace)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", spy)
    argv = ["--headless"]
    for k in range(20_000):
        argv += ["--click", f"{k % 300},{k % 200}@{k % 50 + 1}", "--touch", "Obj3@2"]
    parsed = cli_args.build_parser().parse_args(argv + ["tree10"])
    assert len(parsed.click) == 20_000 and len(parsed.touch) == 20_000
    assert parsed.touch[0] == ("Obj3", 2) and parsed.scene == "tree10"
    assert max(seen) == 2  # --headless and the scene: no click reached argparse's loop


def test_a_bad_repeated_value_is_one_line(capsys):
    with pytest.raises(SystemExit) as info:  # argparse's exit, as for any bad flag
        main(["--touch", "Obj3@0", "--headless"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --touch" in err and "Obj3@0" in err


@settings(max_examples=8, deadline=None)
@given(clicks=st.lists(st.tuples(st.integers(0, 159), st.integers(0, 119)), min_size=1,
                       max_size=12))  # fmt: skip
def test_a_redraws_clicks_pick_as_one_by_one(egl, clicks):
    from viewer.io import load_scene
    from viewer.window.run_options import RunOptions
    from viewer.window.runner import run

    app = run(load_scene(_tree10()), RunOptions(size=(160, 120), frames=1), headless=True)
    picked_each = []
    for x, y in clicks:
        picked_each.append(app.select_at(x + 0.5, y + 0.5))
    app.session.select(None)
    app.select_at_each([(x + 0.5, y + 0.5) for x, y in clicks])
    assert app.session.selected == picked_each[-1]


def _tree10():
    from viewer.io.bundled import bundled_scenes

    return next(path for name, _title, path in bundled_scenes() if name == "tree10")


def test_a_headless_log_run_draws_only_the_last_picture(egl, monkeypatch):
    from viewer.render.renderer import Renderer

    drawn = []
    real = Renderer.draw

    def counting(self, *args, **kwargs):
        drawn.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Renderer, "draw", counting)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--generate", "random:300", "--headless", "--frames", "40",
                     "--size", "96x64", "--log"]) == 0  # fmt: skip
    assert len(drawn) == 1
    assert out.getvalue().count("# frame ") == 40
