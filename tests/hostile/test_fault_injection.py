"""Fault injection (issue 26): each layer below sgview (numpy, numba's compiled kernels,
moderngl, Pillow) made to fail during the load, a frame or the output, through the
command line; the contract holds every time: one line on stderr naming what failed, the
exit status (2 for the input, 1 for the run), no traceback, no numpy warning.

The reload case (the same faults while a saved file is tried) is in
test_reload_transaction.py.
"""

from __future__ import annotations

import warnings
from contextlib import ExitStack
from pathlib import Path

import moderngl
import numpy as np
import pytest
from kernel_faults import faulty_kernel
from needs import need_gl
from PIL import Image

from viewer.cli.main import main

REPO = Path(__file__).resolve().parents[2]
SCENE = str(REPO / "scenes" / "solar_system.toml")  # it moves: every frame computes


def _after(calls: int, error: BaseException):
    """A stand-in that lets the real function run `calls` times, then raises `error`."""

    def patch(real):
        count = [0]

        def wrapper(*args, **kwargs):
            count[0] += 1
            if count[0] > calls:
                raise error
            return real(*args, **kwargs)

        return wrapper

    return patch


def _overflow(*args, **kwargs):
    return np.float64(1e308) * np.float64(10.0)  # what numpy warns about, made an error


FAULTS = {
    # (where to patch, attribute, stand-in maker, exit status, words the line must have)
    "numpy in the load": (np.linalg, "norm", lambda real: _overflow, 2,
                          ["solar_system.toml", "FloatingPointError"]),
    "compiled kernel laying out": ("kernels", "recompute", _after(0, SystemError(
        "CPUDispatcher(<function recompute>) returned a result with an exception set")), 1,
        ["solar_system.toml", "the layout", "SystemError"]),
    "compiled kernel in a frame": ("kernels", "recompute", _after(1, SystemError(
        "CPUDispatcher(<function recompute>) returned a result with an exception set")), 1,
        ["solar_system.toml", "frame", "the update", "SystemError"]),
    "numpy in a frame's motions": ("viewer.session.session.apply_motions", None,
                                   lambda real: _overflow, 1,
                                   ["frame 1", "the motions", "FloatingPointError"]),
    "moderngl in a frame": (moderngl.Buffer, "write", _after(0, moderngl.Error(
        "GL_OUT_OF_MEMORY")), 1, ["OpenGL error", "GL_OUT_OF_MEMORY"]),
    "Pillow writing the screenshot": (Image.Image, "save", _after(0, OSError(
        28, "No space left on device")), 1, ["cannot write", "No space left"]),
}  # fmt: skip


@pytest.mark.parametrize("fault", FAULTS)
def test_a_failing_layer_ends_in_one_line(fault, monkeypatch, capsys, tmp_path):
    need_gl().release()
    target, name, make, status, words = FAULTS[fault]
    stack = ExitStack()
    if target == "kernels":
        stack.enter_context(faulty_kernel(name, make))
    elif name is None:
        monkeypatch.setattr(target, make(None))
    else:
        monkeypatch.setattr(target, name, make(getattr(target, name)))
    shot = tmp_path / "out.png"
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        code = main([SCENE, "--headless", "--frames", "3", "--size", "160x90",
                     "--screenshot", str(shot)])  # fmt: skip
    monkeypatch.undo()
    stack.close()
    err = capsys.readouterr().err
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sgview: "), err
    assert all(w in lines[0] for w in words), (words, lines[0])
    noise = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert "Traceback" not in err and not noise, noise


def test_an_error_no_layer_expected_is_still_one_line(monkeypatch, capsys):
    """The last net: an exception of a kind nothing names (a bug) is one line, status 1."""
    need_gl().release()
    monkeypatch.setattr(
        "viewer.window.app.SgviewApp.on_render", _after(0, LookupError("oops"))(None)
    )
    code = main([SCENE, "--headless", "--frames", "2", "--size", "160x90"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "internal error (LookupError: oops)" in err
