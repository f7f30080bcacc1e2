"""USD cameras as the scene's cameras (the ones glTF files bring: `FileCamera`).

A ``UsdGeom.Camera`` looks down its prim's -Z axis, +Y up, as a glTF camera does, so its
node is the camera's node. pxr computes the projection (``GetCamera``: a ``Gf.Camera``):
the vertical field of view from the focal length and vertical aperture, the clipping
range, and for an orthographic camera the visible height (the vertical aperture, in
tenths of a scene unit). Distances are the stage's units times metres per unit, as the
world sgview draws is in metres (a camera ignores its node's scale, file_view.py). A
camera whose values sgview cannot use is left out with a note, never an error.
"""

from __future__ import annotations

import math

from pxr import Gf, UsdGeom

from viewer.content.scene import FileCamera

__all__ = ["camera_of"]


def camera_of(prim, row: int, time, meters: float, notes: set[str]) -> FileCamera | None:
    """The camera of `prim` on model row `row` at time code `time`, or None (noted)."""
    cam = UsdGeom.Camera(prim).GetCamera(time)
    near, far = cam.clippingRange.min * meters, cam.clippingRange.max * meters
    name = prim.GetName()
    if cam.projection == Gf.Camera.Orthographic:
        half = cam.verticalAperture * Gf.Camera.APERTURE_UNIT * meters / 2.0
        if math.isfinite(half) and half > 0 and 0 <= near < far < math.inf:
            return FileCamera(row, name, "orthographic", znear=near, zfar=far, ymag=half)
    else:
        yfov = math.radians(cam.GetFieldOfView(Gf.Camera.FOVVertical))
        if 0 < yfov < math.pi and 0 < near < far:
            return FileCamera(
                row, name, "perspective", yfov, near, None if math.isinf(far) else far
            )
    notes.add(
        f"{prim.GetPath()}: camera not used (expected a field of view or aperture "
        "above 0 and a clipping range 0 < near < far)"
    )
    return None
