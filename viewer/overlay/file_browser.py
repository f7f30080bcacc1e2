"""Ctrl+O where the desktop has no file dialog (no zenity or kdialog): a file browser in
the window, made of plain ImGui widgets.

A path field (typed paths open with Enter; a folder typed there is shown instead), the
folder's sub-folders and its scene files (.toml, .gltf, .glb, and .usda / .usdc / .usdz
where ``pxr`` imports; a .toml only when it starts like a scene), a click on a folder
goes in, a click on a file puts it in the field, a double-click (or Open) opens it
through the source's open request, as the recent files list does (a source without files
has none: the browser then opens nothing). It starts in the
folder of the scene on show. While it is open it owns the keyboard
(`Overlay.wants_keyboard`): Esc closes it, no key reaches the scene; keys that come
before its path field is active (typed at once after Ctrl+O, at a few frames per second)
wait for it (`focusing`) instead of being lost. imgui-bundle's ``im_file_dialog`` needs
a texture loader the moderngl-window integration does not give it, hence plain widgets.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable
from pathlib import Path

from imgui_bundle import imgui

from viewer.text import printable

from .widgets import COLORS, ItemRect, button, vec4

#: USD's suffixes, listed where the USD library (usd-core's ``pxr``) is installed.
USD_SUFFIXES = (".usda", ".usdc", ".usdz")
#: Entries listed at most (a folder of a million files stays responsive).
MAX_ENTRIES = 2000
#: Frames the browser waits for its path field to take the keyboard (then keys flow anyway).
FOCUS_FRAMES = 4
#: A .toml is listed when its first bytes hold one of a scene's tables (docs/scene-format.md):
#: pyproject.toml and other settings files are not scenes. At most `SNIFF_FILES` are
#: read per listing, `SNIFF_BYTES` each (the rest are listed unread).
SCENE_TABLE = re.compile(
    rb"^[ \t]*\[\[?[ \t]*(scene|camera|collision|node|event|include)[ \t]*[\].]", re.MULTILINE
)
SNIFF_BYTES = 4096
SNIFF_FILES = 200
#: Folders a Python build leaves (``pip install .``): never a scene's, always left out.
BUILD_SUFFIXES = (".egg-info", ".dist-info")
BUILD_FOLDERS = ("__pycache__",)
#: Build outputs left out beside a Python project's own files only (elsewhere a folder of
#: that name may well hold scenes).
PROJECT_OUTPUTS = ("build", "dist")
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
#: The browser's share of the picture.
WIDTH_SHARE, HEIGHT_SHARE = 0.7, 0.7
MAX_WIDTH = 720.0


def listed_suffixes(scene_suffixes: tuple[str, ...]) -> tuple[str, ...]:
    """The file suffixes the browser lists: the scene files the app opens, and USD's
    where ``pxr`` imports."""
    has_usd = importlib.util.find_spec("pxr") is not None
    extra = tuple(s for s in USD_SUFFIXES if has_usd and s not in scene_suffixes)
    return tuple(scene_suffixes) + extra


def looks_like_scene(path: Path) -> bool:
    """Whether the .toml file at `path` starts like a scene (one of its tables within its
    first `SNIFF_BYTES`); a file that cannot be read is listed, and opening it says why."""
    try:
        with open(path, "rb") as f:
            return SCENE_TABLE.search(f.read(SNIFF_BYTES)) is not None
    except OSError:
        return True


def is_build_output(name: str, in_project: bool) -> bool:
    """Whether the folder `name` is what a Python build leaves (egg-info, caches; build/
    and dist/ where the folder around it is a Python project, `in_project`)."""
    if name in BUILD_FOLDERS or name.endswith(BUILD_SUFFIXES):
        return True
    return in_project and name in PROJECT_OUTPUTS


def listing(folder: Path, suffixes: tuple[str, ...]) -> tuple[list[str], list[str], str | None]:
    """(sub-folders, scene files, why nothing could be listed or None) of `folder`, each
    sorted by name, hidden entries and build artefacts (`is_build_output`) left out, at
    most `MAX_ENTRIES` in all; a .toml that is no scene (`looks_like_scene`) is left out."""
    folders: list[str] = []
    files: list[str] = []
    sniffed = 0
    project = any((folder / name).is_file() for name in PROJECT_FILES)
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if len(folders) + len(files) >= MAX_ENTRIES:
                    break
                try:
                    if entry.is_dir():
                        if not is_build_output(entry.name, project):
                            folders.append(entry.name)
                    elif entry.name.lower().endswith(suffixes):
                        if entry.name.lower().endswith(".toml") and sniffed < SNIFF_FILES:
                            sniffed += 1
                            if not looks_like_scene(Path(entry.path)):
                                continue
                        files.append(entry.name)
                except OSError:
                    continue  # a broken link, a vanished entry: not listed
    except OSError as exc:
        return [], [], f"cannot list {printable(str(folder), 200)}: {exc.strerror or exc}"
    return sorted(folders, key=str.lower), sorted(files, key=str.lower), None


class FileBrowser:
    """The in-window file browser (see the module notes); `shown` while open."""

    def __init__(self, request_open: Callable[[Path], None] | None) -> None:
        self._request_open = request_open  # the source's: opens at the next redraw
        self.shown = False
        self.folder = Path.cwd()
        self.path_text = ""
        self._focus = False
        self._focusing = 0  # frames left to wait for the path field to be active
        self.suffixes: tuple[str, ...] = ()
        self._listed: tuple[Path, tuple[list[str], list[str], str | None]] | None = None
        #: The window's rectangle at the last frame (x, y, w, h).
        self.rect: tuple[float, float, float, float] | None = None
        #: Each listed row's rectangle at the last frame (folders end in "/"; tests).
        self.rows: dict[str, ItemRect] = {}

    def start(self, folder: str | Path, scene_suffixes: tuple[str, ...]) -> None:
        """Open the browser in `folder` (the path field holds it, ready for typing),
        listing the files with `scene_suffixes` (`listed_suffixes`)."""
        self.shown = True
        self.suffixes = listed_suffixes(scene_suffixes)
        self._go(Path(folder))

    def close(self) -> None:
        self.shown = False
        self._focusing = 0

    @property
    def focusing(self) -> bool:
        """Just opened (or moved to a folder): its path field is not active yet, so a key
        now would reach no field; the overlay holds such keys until this is False."""
        return self.shown and self._focusing > 0

    def _go(self, folder: Path) -> None:
        self.folder = folder.expanduser().resolve()
        self.path_text = str(self.folder) + os.sep
        self._listed = None
        self._focus = True
        self._focusing = FOCUS_FRAMES

    def _choose(self, text: str) -> None:
        """The path in the field: a folder is shown, anything else is opened (a bad
        file says why in the panel, as a dropped one does)."""
        path = Path(text.strip()).expanduser()
        if not path.is_absolute():
            path = self.folder / path
        if path.is_dir():
            self._go(path)
            return
        if self._request_open is not None:
            self._request_open(path)
        self.close()

    def draw(self, width: float, height: float) -> None:
        if not self.shown:
            return
        w = min(MAX_WIDTH, WIDTH_SHARE * width)
        h = HEIGHT_SHARE * height
        imgui.set_next_window_pos(imgui.ImVec2(0.5 * (width - w), 0.5 * (height - h)))
        imgui.set_next_window_size(imgui.ImVec2(w, h))
        imgui.set_next_window_focus()
        # Opaque, as the panels (the style's window colour): at 97 % their text shows through.
        flags = imgui.WindowFlags_.no_collapse | imgui.WindowFlags_.no_saved_settings
        opened, keep = imgui.begin("Open a scene   (Esc closes)", True, flags)
        pos, size = imgui.get_window_pos(), imgui.get_window_size()
        self.rect = (pos.x, pos.y, size.x, size.y)
        if opened:
            self._contents()
        imgui.end()
        if not keep or imgui.is_key_pressed(imgui.Key.escape, False):
            self.close()

    def _contents(self) -> None:
        if self._focus:
            imgui.set_keyboard_focus_here()
            self._focus = False
        imgui.set_next_item_width(-110.0)
        entered, self.path_text = imgui.input_text(
            "##path", self.path_text, imgui.InputTextFlags_.enter_returns_true
        )
        if self._focusing:
            self._focusing = 0 if imgui.is_item_active() else self._focusing - 1
        imgui.same_line()
        if (
            button("Open", "open the file (or folder) named in the field; Enter does too")
            or entered
        ):
            self._choose(self.path_text)
        imgui.same_line()
        if button("Up", "list the folder above this one"):
            self._go(self.folder.parent)
        if self._listed is None or self._listed[0] != self.folder:
            self._listed = (self.folder, listing(self.folder, self.suffixes))
        folders, files, why = self._listed[1]
        kinds = ", ".join(self.suffixes)
        imgui.push_text_wrap_pos(0.0)  # wrapped: at 640x360 the kinds ran past the edge
        imgui.text_colored(vec4(COLORS.dim), f"folders and scene files ({kinds})")
        imgui.pop_text_wrap_pos()
        imgui.begin_child("entries", imgui.ImVec2(0.0, 0.0), imgui.ChildFlags_.borders)
        if why is not None:
            imgui.push_text_wrap_pos(0.0)
            imgui.text_colored(vec4(COLORS.local), why)
            imgui.pop_text_wrap_pos()
        self.rows = {}
        for name in folders:
            if imgui.selectable(f"{printable(name, 120)}/##d{name}", False)[0]:
                self._go(self.folder / name)
            self.rows[name + "/"] = (imgui.get_item_rect_min(), imgui.get_item_rect_max())
        for name in files:
            path = self.folder / name
            chosen = self.path_text == str(path)
            label = f"{printable(name, 120)}##f{name}"
            if imgui.selectable(label, chosen, imgui.SelectableFlags_.allow_double_click)[0]:
                self.path_text = str(path)
                # Opened by a double-click on it, not by the second click of a
                # double-click whose first went into a folder (and whose second then
                # landed on whatever file took that folder's place in the listing).
                if chosen and imgui.is_mouse_double_clicked(imgui.MouseButton_.left):
                    self._choose(str(path))
            self.rows[name] = (imgui.get_item_rect_min(), imgui.get_item_rect_max())
        if not (folders or files or why):
            imgui.text_disabled("no folders or scene files here")
        imgui.end_child()
