"""Opening a USD stage as untrusted input: within the load's budgets, composition errors as notes.

pxr reports problems through its diagnostic system (printed on stderr by default) and
`Tf.ErrorException`s whose text carries C++ file names and line numbers. Here every
diagnostic of an open is captured (`UsdUtils.CoalescingDiagnosticDelegate`), nothing is
printed raw. A file that pxr cannot open as a stage (a layer that does not parse, a file
that is no USD layer) and a cycle of references or sublayers are refused: the first
problem becomes one `SceneError` naming the file, the prim and the property when pxr
names them.

Every other composition error (an asset, layer or sublayer that cannot be found, a prim
path that a reference or payload names and no layer holds, a file format no plugin reads,
such as MaterialX looks without their plugin) leaves the stage as `Usd.Stage.Open`
composes it, as usdview shows it: `composition_notes` says what was left out, one line
per unresolved arc, naming the asset or path and the prim that asked for it, so the scene
is shown without hiding that a part of it is missing.

A scene on show keeps its stage open (the inspector reads it), and pxr shares open
layers: opening the same file again (live reload) reloads its layers from disk.

Budgets, checked before pxr allocates: the file's size (``--max-buffer-mb``); a ``.usdz``
must be a zip archive whose members, uncompressed, fit the same cap.
"""

from __future__ import annotations

import re
import zipfile
from contextlib import contextmanager
from pathlib import Path

from pxr import Pcp, Sdf, Tf, Usd, UsdUtils

from viewer.io.errors import SceneError
from viewer.io.limits import Limits

__all__ = ["captured_diagnostics", "composition_notes", "open_stage", "stage_error"]

#: pxr's "Error in 'Function' at line N in file F : 'message'" wrapper.
_WRAPPED = re.compile(r"in file .*? : '(.*)'\s*$", re.S)
#: "In </World/A>: message" and "... in </World/A.xformOp:translate>" prefixes.
_PRIM = re.compile(r"<(/[^>]*)>")
#: Composition errors that refuse the stage: a cycle has no composed answer to show.
_FATAL = (Pcp.ErrorType_ArcCycle, Pcp.ErrorType_SublayerCycle)
#: The most composition errors listed one by one; the rest are counted in one line.
MAX_COMPOSITION_NOTES = 100


@contextmanager
def captured_diagnostics():
    """pxr's warnings and errors collected instead of printed; yields the delegate."""
    delegate = UsdUtils.CoalescingDiagnosticDelegate()
    try:
        yield delegate
    finally:
        delegate.TakeUncoalescedDiagnostics()  # drop what nobody asked for
        del delegate


def stage_error(text: str, display: str) -> SceneError:
    """A `SceneError` from a pxr message: its prim and property, without C++ locations."""
    match = _WRAPPED.search(text)
    message = (match.group(1) if match else text).strip()
    message = " ".join(line.strip() for line in message.splitlines()) or "unknown error"
    message = re.sub(r",@anon:[^@]*@", "", message)  # the session layer's address
    where = _PRIM.search(message)
    section = field = None
    if where is not None:
        path, _, prop = where.group(1).partition(".")
        section, field = f"prim {path}", prop or None
    message = re.sub(r"\s*\(instantiating stage on stage @[^)]*\)", "", message)
    message = re.sub(r"pxrInternal_v\w+::", "", message)
    return SceneError(message, file=display, section=section, field=field)


def _check_package(path: Path, display: str, limits: Limits) -> None:
    """A .usdz must be a zip archive whose members, uncompressed, fit the byte cap."""
    if not zipfile.is_zipfile(path):
        raise SceneError(
            "a .usdz package must be a zip archive; this file is not one", file=display
        )
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        total = sum(m.file_size for m in members)
        reason = limits.bytes_reason(total, "the package, uncompressed,")
        if reason is not None:
            raise SceneError(reason, file=display)
        for m in members:
            if m.compress_type != zipfile.ZIP_STORED:  # USD reads members in place
                raise SceneError(
                    f"member {m.filename!r} is compressed; a .usdz package "
                    "stores its files uncompressed",
                    file=display,
                )


def open_stage(path: Path, display: str, limits: Limits) -> Usd.Stage:
    """The stage of `path` with every payload loaded, or one `SceneError`."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SceneError(f"cannot read the file ({exc.strerror or exc})", file=display) from None
    reason = limits.bytes_reason(size, "the file")
    if reason is not None:
        raise SceneError(reason, file=display)
    if path.suffix.lower() == ".usdz":
        _check_package(path, display, limits)
    with captured_diagnostics() as delegate:
        try:
            cached = Sdf.Layer.Find(str(path))  # open already (a scene on show holds it)
            stage = Usd.Stage.Open(str(path), Usd.Stage.LoadAll)
            if cached:  # pxr would hand back the layers as first read: read them again
                stage.Reload()
        except Tf.ErrorException as exc:
            raise stage_error(str(exc), display) from None
        errors = [
            d.commentary
            for d in delegate.TakeUncoalescedDiagnostics()
            if "ERROR" in str(d.diagnosticCode)
        ]
    if stage is None:
        raise SceneError("pxr could not open the stage", file=display)
    if errors:
        raise stage_error(errors[0], display)
    for error in stage.GetCompositionErrors():
        if error.errorType in _FATAL:
            raise stage_error(str(error), display)
    return stage


def _clean(text: str, folder: str) -> str:
    """pxr's message in one line: no C++ namespaces, no file-format arguments, asset
    paths under the stage's `folder` written relative to it."""
    text = " ".join(line.strip() for line in text.splitlines()).strip()
    text = re.sub(r":SDF_FORMAT_ARGS:[^@]*@", "@", text)
    text = re.sub(r"pxrInternal_v\w+::", "", text)
    text = re.sub(r",@anon:[^@]*@", "", text)
    text = re.sub(r"\s+\.$", ".", text)
    return text.replace(f"@{folder}/", "@") if folder else text


def composition_notes(stage: Usd.Stage) -> list[str]:
    """What composition left out of `stage`, one line per unresolved arc (pxr's message,
    naming the asset or prim path and the layer that authored the arc), after the first
    prim on the stage that asked for it (and how many more did): the same arc reached
    through several references is one line."""
    layer = stage.GetRootLayer()
    folder = str(Path(layer.realPath).parent) if layer.realPath else ""
    asked: dict[str, list[str]] = {}
    for error in stage.GetCompositionErrors():
        message = _clean(str(error), folder)
        site = str(error.rootSite.path) if error.rootSite else ""
        asked.setdefault(message, []).append(site)
    found = []  # (the first prim in path order, how many more, the message)
    for message, sites in asked.items():
        prims = sorted({site for site in sites if site not in ("", "/")})
        found.append((prims[0] if prims else "", max(len(prims) - 1, 0), message))
    notes = []
    for prim, more, message in sorted(found)[:MAX_COMPOSITION_NOTES]:
        where = ""
        if more or (prim and f"<{prim}>" not in message):  # pxr may name it already
            others = f" (and {more:,} more prim{'s' if more > 1 else ''})" if more else ""
            where = f"{prim}{others}: "
        notes.append(f"not composed: {where}{message}")
    left = len(asked) - MAX_COMPOSITION_NOTES
    if left > 0:
        notes.append(f"not composed: {left:,} more unresolved arcs")
    return notes
