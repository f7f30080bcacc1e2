"""Opening a USD stage as untrusted input: within the load's budgets, in one line on error.

pxr reports problems through its diagnostic system (printed on stderr by default) and
`Tf.ErrorException`s whose text carries C++ file names and line numbers. Here every
diagnostic of an open is captured (`UsdUtils.CoalescingDiagnosticDelegate`), nothing is
printed raw, and the first problem becomes one `SceneError` naming the file, the prim and
the property when pxr names them: a layer that does not parse, a reference, payload or
sublayer that cannot be found, a cycle of references (every composition error is fatal:
a stage missing part of itself would show a wrong scene without saying so).

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

from pxr import Sdf, Tf, Usd, UsdUtils

from viewer.io.errors import SceneError
from viewer.io.limits import Limits

__all__ = ["captured_diagnostics", "open_stage", "stage_error"]

#: pxr's "Error in 'Function' at line N in file F : 'message'" wrapper.
_WRAPPED = re.compile(r"in file .*? : '(.*)'\s*$", re.S)
#: "In </World/A>: message" and "... in </World/A.xformOp:translate>" prefixes.
_PRIM = re.compile(r"<(/[^>]*)>")


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
    composition = stage.GetCompositionErrors()
    if composition:
        raise stage_error(str(composition[0]), display)
    if errors:
        raise stage_error(errors[0], display)
    return stage
