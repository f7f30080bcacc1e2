"""Import a script of bench/ (a folder of scripts, not a package) from a test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load_bench(name: str):
    """The module bench/NAME.py, imported under a private name (once per test run)."""
    key = f"sgview_bench_{name}"
    if key in sys.modules:
        return sys.modules[key]
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # the scripts import each other by plain name
    spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module
