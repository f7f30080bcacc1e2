"""Scene files are data: nothing in the loaders can execute or evaluate what a file holds.

The check reads the source of every module in viewer/io (the code that touches file
contents) and refuses calls and imports that could run code or build arbitrary objects:
eval/exec/compile/__import__, pickle-like deserialisers, YAML, process spawning, dynamic
imports. Then a file full of code-looking strings loads as plain strings.
"""

from __future__ import annotations

import ast
from pathlib import Path

import viewer.io
from viewer.io import load_scene

IO = Path(viewer.io.__file__).parent
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "breakpoint", "input"}
FORBIDDEN_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "yaml", "ruamel",
                     "jsonpickle", "importlib", "runpy", "code", "codeop", "subprocess",
                     "ctypes", "pty"}  # fmt: skip
FORBIDDEN_ATTRIBUTES = {"system", "popen", "spawnl", "spawnv", "execv", "execl", "execvp",
                        "load_module", "exec_module", "unsafe_load", "full_load"}  # fmt: skip


def offences(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, name)):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                found.append(f"{where}: call to {func.id}()")
            if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_ATTRIBUTES:
                found.append(f"{where}: call to .{func.attr}()")
            if isinstance(func, ast.Attribute) and func.attr == "load":  # yaml.load & co.
                base = func.value
                if isinstance(base, ast.Name) and base.id in FORBIDDEN_MODULES:
                    found.append(f"{where}: {base.id}.load()")
        elif isinstance(node, ast.Import):
            found += [f"{where}: import {a.name}" for a in node.names
                      if a.name.split(".")[0] in FORBIDDEN_MODULES]  # fmt: skip
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
            FORBIDDEN_MODULES
        ):
            found.append(f"{where}: from {node.module} import ...")
    return found


def test_the_checker_catches_what_it_should():
    bad = "import pickle\nfrom yaml import load\neval(x)\nos.system('x')\nyaml.load(s)\n"
    assert len(offences(bad, "bad.py")) == 5


def test_no_loader_module_can_run_code_from_a_file():
    files = sorted(IO.glob("*.py"))
    assert len(files) >= 10
    found = [o for p in files for o in offences(p.read_text(encoding="utf-8"), p.name)]
    assert found == []


def test_code_in_a_scene_file_stays_a_string(tmp_path):
    marker = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    path = tmp_path / "scene.toml"
    path.write_text(
        f"[scene]\ntitle = {payload!r}\n\n[[node]]\nname = {payload!r}\nmesh = 'cube'\n",
        encoding="utf-8",
    )
    scene = load_scene(path)
    assert scene.title == payload and payload in scene.graph
    assert not marker.exists()
