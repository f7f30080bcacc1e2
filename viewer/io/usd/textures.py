"""UsdPreviewSurface textures: the ``UsdUVTexture`` shaders feeding a material's
``diffuseColor`` and ``normal``, as the `TextureRef`s glTF materials use.

An image is read through pxr's asset resolver (so a ``.usdz`` package's own files work),
as a PNG or JPEG of sides up to `MAX_SIDE`, its bytes and pixels counted against the
load's budget. A file outside the stage's folder (an absolute path, ``..``) is refused,
as for glTF. ``wrapS``/``wrapT`` become the sampler's wrap modes. The coordinates come
from the ``UsdPrimvarReader_float2`` connected to the texture's ``st`` (its ``varname``,
``st`` by default); USD's t axis points up, glTF's v down: v = 1 - t (read.py).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
from pxr import Ar, UsdShade

from viewer.io.errors import ErrorPlace, SceneError
from viewer.io.limits import Budget
from viewer.materials import CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT, TextureImage, TextureRef
from viewer.text import brief

__all__ = ["MAX_SIDE", "TextureReader"]

MAX_SIDE = 8192
_WRAPS = {
    "repeat": REPEAT,
    "mirror": MIRRORED_REPEAT,
    "clamp": CLAMP_TO_EDGE,
    "black": CLAMP_TO_EDGE,
    "useMetadata": REPEAT,
}


class TextureReader:
    """Reads the textures of one stage, each image once."""

    def __init__(self, folder: Path | None, display: str, budget: Budget) -> None:
        self.folder = None if folder is None else folder.resolve()
        self.display = display
        self.budget = budget
        self._images: dict[str, TextureImage] = {}

    def texture(self, shader_input) -> tuple[TextureRef | None, str]:
        """The texture feeding `shader_input` and its coordinates' primvar name; (None,
        "") when the input is not fed by a UsdUVTexture."""
        if not shader_input or not shader_input.HasConnectedSource():
            return None, ""
        source = shader_input.GetConnectedSource()[0]
        shader = UsdShade.Shader(source.GetPrim())
        if not shader or shader.GetIdAttr().Get() != "UsdUVTexture":
            return None, ""
        asset = shader.GetInput("file").Get() if shader.GetInput("file") else None
        if asset is None or not asset.path:
            return None, ""
        wrap = tuple(
            _WRAPS.get(str(_value(shader, name, "useMetadata")), REPEAT)
            for name in ("wrapS", "wrapT")
        )
        image = self._image(asset, shader.GetPath(), wrap)
        return TextureRef(image), _varname(shader)

    def _image(self, asset, where, wrap) -> TextureImage:
        resolved = asset.resolvedPath or str(Ar.GetResolver().Resolve(asset.path))
        key = f"{resolved}|{wrap}"
        if key in self._images:
            return self._images[key]
        place: _Place = {"file": self.display, "section": f"prim {where}", "field": "inputs:file"}
        if not resolved:
            raise SceneError(f"cannot find the texture {asset.path!r}", **place)
        outer = resolved.split("[", 1)[0]  # a package's member: the package is the file
        inside = self.folder is None or Path(outer).resolve().is_relative_to(self.folder)
        if not inside:
            raise SceneError(f"the texture {asset.path!r} lies outside the stage's folder", **place)
        opened = Ar.GetResolver().OpenAsset(Ar.ResolvedPath(resolved))
        if opened is None:
            raise SceneError(f"cannot read the texture {asset.path!r}", **place)
        reason = self.budget.charge_data(opened.GetSize())
        if reason is not None:
            raise SceneError(reason, **place)
        pixels = _decode(bytes(opened.GetBuffer()), place, self.budget)
        self._images[key] = image = TextureImage(pixels, wrap)
        return image


class _Place(ErrorPlace, total=False):
    """Where a texture's error points, its field included."""

    field: str | None


def _value(shader, name: str, default):
    inp = shader.GetInput(name)
    got = inp.Get() if inp else None
    return default if got is None else got


def _varname(texture) -> str:
    """The primvar the texture's st input reads (``st`` when nothing says)."""
    st = texture.GetInput("st")
    if st and st.HasConnectedSource():
        reader = UsdShade.Shader(st.GetConnectedSource()[0].GetPrim())
        name = _value(reader, "varname", "st")
        return str(name) or "st"
    return "st"


def _decode(data: bytes, place: _Place, budget: Budget) -> np.ndarray:
    """RGBA pixels of a PNG or JPEG, refusing a size over the caps before decoding it."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's own bomb warning: checked below
            img = Image.open(io.BytesIO(data), formats=("PNG", "JPEG"))
            w, h = img.size
            if not (0 < w <= MAX_SIDE and 0 < h <= MAX_SIDE):
                raise SceneError(
                    f"the image is {w}x{h} pixels; sides up to {MAX_SIDE} are accepted", **place
                )
            reason = budget.charge_data(4 * w * h)
            if reason is not None:
                raise SceneError(reason, **place)
            return np.asarray(img.convert("RGBA"), dtype=np.uint8).copy()
    except SceneError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise SceneError(f"not a PNG or JPEG image it can read ({brief(exc)})", **place) from None
