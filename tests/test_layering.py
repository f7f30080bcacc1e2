"""Every import between the viewer's packages follows docs/architecture.md's table.

The table (between the ``layering`` markers) lists each unit (a package or a top-level
module of `viewer`), the units it may import, and whether it may use GL or windowing
libraries. This test reads the table from the doc, so the doc and the rule cannot drift,
and checks every import statement of every module, including imports inside functions.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
VIEWER = ROOT / "viewer"
DOC = ROOT / "docs" / "architecture.md"
GL_LIBS = {"moderngl", "moderngl_window", "glcontext", "imgui_bundle", "imgui", "pyglet"}


def _table() -> dict[str, tuple[set[str], bool]]:
    """unit -> (units it may import, GL allowed), from the doc's layering table."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- layering -->(.*?)<!-- /layering -->", text, re.S)
    assert block, "docs/architecture.md has no layering table"
    rows = {}
    for line in block.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        units = re.findall(r"`([\w.]+)`", cells[0])
        allowed = set(re.findall(r"`([\w.]+)`", cells[1]))
        gl = cells[2].lower().startswith("yes")
        for unit in units:
            rows[unit] = (allowed, gl)
    return rows


TABLE = _table()


def _unit_of(module: str) -> str | None:
    """The longest row of the table that `module` is or lies in: 'viewer.io.loader' ->
    'viewer.io'; 'viewer.window.app' -> 'viewer.window.app' (it has a row of its own);
    'viewer' -> 'viewer'."""
    parts = module.split(".")
    if parts[0] != "viewer":
        return None
    for end in range(len(parts), 1, -1):
        if ".".join(parts[:end]) in TABLE:
            return ".".join(parts[:end])
    return ".".join(parts[:2])


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[str]:
    """Absolute names of everything `path` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path.parent)
    if path.name != "__init__.py":
        package = _module_name(path).rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base)
                names.append(f"{prefix}.{node.module}" if node.module else prefix)
            else:
                names.append(node.module)
    return names


SOURCES = sorted(p for p in VIEWER.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_unit_of_the_viewer_has_a_row():
    units = {_unit_of(_module_name(p)) for p in SOURCES} - {None}
    assert units <= set(TABLE), f"missing rows: {sorted(units - set(TABLE))}"
    assert set(TABLE) <= units, f"rows for units that do not exist: {sorted(set(TABLE) - units)}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_table(path):
    unit = _unit_of(_module_name(path))
    allowed, gl = TABLE[unit]
    bad = []
    for name in _imports(path):
        target = _unit_of(name)
        if target is not None and target != unit and target not in allowed:
            bad.append(name)
        if not gl and name.split(".")[0] in GL_LIBS:
            bad.append(name)
    assert bad == [], f"{unit} may not import {bad} (docs/architecture.md, layering)"


@pytest.mark.parametrize("unit", sorted(u for u, (_, gl) in TABLE.items() if not gl))
def test_importing_a_gl_free_unit_loads_no_gl_module(unit):
    """Transitively too: what a GL-free unit pulls in at import time has no GL."""
    code = (
        f"import sys, {unit}; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(GL_LIBS)!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"


MODULES = {_module_name(p): p for p in SOURCES}


def _module_imports(path: Path) -> set[str]:
    """The modules of `viewer` that `path` names in an import statement: anywhere in the
    file (inside functions and ``if TYPE_CHECKING:`` blocks too). ``from pkg import x``
    counts as importing ``pkg.x`` when that is a module, else ``pkg`` itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return {name for name in found if name in MODULES and name != own}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm,
    iterative): every import cycle lies inside one of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, targets = work[-1]
            for w in targets:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_no_module_imports_a_module_that_imports_it_back():
    """Dependencies between modules run one way: no cycle of imports at all (direct or
    through other modules; imports inside functions and for type checking included). A
    package's ``__init__`` counts as the module it is (importing a submodule is not an
    import of the package here: Python runs it first, but it is no dependency)."""
    edges = {name: _module_imports(path) for name, path in MODULES.items()}
    assert _cycles(edges) == []


def test_the_cycle_check_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(edges) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _private_reads(path: Path) -> list[str]:
    """``x._name`` in `path` where ``x`` is not ``self`` or ``cls``, unless ``_name`` is a
    function or class of the same module or in the ``__slots__`` of one of its classes
    (a class reading its own slot on another instance, as ``__eq__`` does), or a method of
    IPython's display protocol (``_repr_png_``): each other one reaches into a private
    member that some other module owns."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(node.name)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            own |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        if node.attr.startswith("__") and node.attr.endswith("__"):
            continue
        if re.fullmatch(r"_repr_\w+_", node.attr):  # IPython's display protocol: public
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        if node.attr not in own:
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_private_member_check_finds_a_reach(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class A:\n    __slots__ = ('_x',)\n    def same(self, o):\n        return o._x\n"
        "def other(g):\n    return g._store.n + g._x + len(g._repr_png_())\n",
        encoding="utf-8",
    )
    assert [r.split(": ")[1] for r in _private_reads(sample)] == ["g._store"]


def test_no_module_reads_another_modules_private_members():
    """Everywhere in viewer/, the core's rule: a module uses another's public names only."""
    assert [line for path in SOURCES for line in _private_reads(path)] == []


def _borrowed_methods(path: Path) -> list[str]:
    """Functions of other viewer modules made methods: a class body assigning a name
    imported from the viewer or an attribute of such a module (``_live =
    node_surface.live``; constants, named in capitals, may be), or any mention of
    ``types.MethodType``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = set()
    found = []
    for node in ast.walk(tree):
        ours = isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] == "viewer"
        )
        ours = ours or (
            isinstance(node, ast.Import) and any(a.name.startswith("viewer") for a in node.names)
        )
        if ours:
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
            a.name == "MethodType" for a in node.names
        ):
            found.append(f"{path.name}:{node.lineno}: MethodType")
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
                    continue
                value = stmt.value
                root = value
                while isinstance(root, ast.Attribute):
                    root = root.value
                last = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", "")
                if isinstance(root, ast.Name) and root.id in imported and not last.isupper():
                    found.append(f"{path.name}:{stmt.lineno}: {ast.unparse(stmt)}")
        elif isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name == "MethodType":
                found.append(f"{path.name}:{node.lineno}: MethodType")
    return found


def test_no_class_borrows_another_modules_functions():
    assert [line for path in SOURCES for line in _borrowed_methods(path)] == []


def test_the_borrowed_method_check_finds_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from types import MethodType\nfrom . import surface\nfrom .ops import move\n"
        "import numpy as np\n"
        "class G:\n    LIMIT = 3\n    dtype = np.float64\n    _live = surface.live\n"
        "    colors = surface.COLORS\n"
        "    go = move\n",
        encoding="utf-8",
    )
    got = [line.split(": ", 1)[1] for line in _borrowed_methods(sample)]
    assert got == ["MethodType", "_live = surface.live", "go = move"]


def test_the_architecture_doc_names_every_module_in_one_line():
    """docs/architecture.md's module list (between the ``modules`` markers): a package
    line (`` `viewer/io/` ``) and under it one ``- `name.py`: what it is`` line per
    module, exactly the modules there are."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- modules -->(.*?)<!-- /modules -->", text, re.S)
    assert block, "docs/architecture.md has no module list"
    named, package = [], None
    for line in block.group(1).splitlines():
        if m := re.fullmatch(r"`(viewer(?:/\w+)*)/`", line.strip()):
            package = m.group(1)
        elif m := re.fullmatch(r"- `(\w+\.py)`: (.+)", line.strip()):
            assert package is not None, line
            named.append(f"{package}/{m.group(1)}")
    there = [p.relative_to(ROOT).as_posix() for p in SOURCES]
    assert sorted(set(there) - set(named)) == [], "modules the doc does not name"
    assert sorted(set(named) - set(there)) == [], "modules the doc names that are gone"
    assert len(named) == len(set(named))
