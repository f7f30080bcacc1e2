"""Blender's scene published to ``sgview listen`` (docs/blender.md):
``viewer.blender.publish("127.0.0.1:7878", name="my scene")`` in a Python that has ``bpy``
(Blender's own, or the ``bpy`` module: ``pip install 'sgview[blender]'``). ``bpy`` is
imported on first use, so this package imports anywhere."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .publisher import BlenderLink

__all__ = ["BlenderLink", "publish"]


def publish(
    address: str = "127.0.0.1:7878", *, name: str | None = None, **options: Any
) -> BlenderLink:
    """Send every Blender frame of the scene from now on to the viewer at ``address``;
    returns at once with the link (``link.close()`` stops it). See
    `viewer.blender.publisher.publish`."""
    from .publisher import publish as start

    return start(address, name=name, **options)


def __getattr__(name: str) -> Any:
    if name == "BlenderLink":
        from .publisher import BlenderLink

        return BlenderLink
    raise AttributeError(f"module 'viewer.blender' has no attribute {name!r}")
