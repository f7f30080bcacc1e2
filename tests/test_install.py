"""The installed package works on its own: shaders and scenes ship inside the wheel.

The suite itself imports `viewer` from the checkout; this test runs the `sgview` that
pip installed, from a folder outside the checkout, so it can only find what the wheel
carries. It skips when sgview is not installed or is an editable install of this tree.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _installed_viewer() -> Path | None:
    code = "import viewer, pathlib; print(pathlib.Path(viewer.__file__).resolve().parent)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd="/", env=env)  # fmt: skip
    return Path(out.stdout.strip()) if out.returncode == 0 else None


def test_installed_sgview_renders_from_outside_the_checkout(tmp_path):
    script = Path(sys.executable).with_name("sgview")
    package = _installed_viewer()
    if not script.exists() or package is None:
        pytest.skip("sgview is not installed in this environment (pip install .)")
    if package == REPO / "viewer":  # (a venv inside the checkout is fine: site-packages)
        pytest.skip("sgview is installed in editable mode: the wheel's contents are not used")
    for folder in ("shaders", "scenes"):  # every file of the checkout's folder ships
        shipped = {p.name for p in (package / folder).iterdir() if p.is_file()}
        wanted = {p.name for p in (REPO / folder).iterdir() if p.is_file()}
        assert wanted <= shipped, f"{folder}/ files missing from the wheel: {wanted - shipped}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(script), "--headless", "--frames", "2", "--size", "160x120",
         "--screenshot", "shot.png"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "shot.png").stat().st_size > 1000


def test_every_subpackage_of_viewer_is_listed_for_the_wheel():
    """A package folder missing from pyproject's list would be left out of the wheel
    (the editable install the suite runs from would not notice)."""
    import tomllib

    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "viewer").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= listed, f"not in pyproject's packages: {sorted(found - listed)}"
