"""The Blender add-on: a panel and two operators that start and stop publishing the scene to
``sgview listen`` (docs/blender.md says how to install it). The publishing itself is
`viewer.blender.publish`: sgview must be installed in Blender's own Python."""

from __future__ import annotations

from typing import Any

import bpy

bl_info = {
    "name": "sgview publisher",
    "author": "sgview",
    "version": (0, 1, 0),
    "blender": (4, 2, 0),
    "location": "Properties > Scene > sgview",
    "description": "Show each frame's re-evaluated objects and bones live in sgview listen",
    "category": "Development",
}

#: The running publisher, one per Blender session (None: not publishing).
_published: list[Any] = []


class SGVIEW_OT_publish(bpy.types.Operator):
    """Publish this scene's frames to a listening sgview"""

    bl_idname = "sgview.publish"
    bl_label = "Publish to sgview"

    def execute(self, context: Any) -> set[str]:
        from viewer.blender import publish

        _stop()
        settings = context.scene.sgview
        _published.append(publish(settings.address, name=settings.program or None))
        self.report({"INFO"}, f"sgview: publishing to {settings.address}")
        return {"FINISHED"}


class SGVIEW_OT_stop(bpy.types.Operator):
    """Stop publishing to sgview"""

    bl_idname = "sgview.stop"
    bl_label = "Stop publishing"

    def execute(self, context: Any) -> set[str]:
        _stop()
        return {"FINISHED"}


class SGVIEW_PT_panel(bpy.types.Panel):
    bl_label = "sgview"
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "scene"

    def draw(self, context: Any) -> None:
        settings = context.scene.sgview
        self.layout.prop(settings, "address")
        self.layout.prop(settings, "program")
        link = _published[0] if _published else None
        if link is None:
            self.layout.operator(SGVIEW_OT_publish.bl_idname)
            return
        state = "connected" if link.connected else "waiting for sgview listen"
        self.layout.label(text=f"{state}: {link.frames} frames sent")
        self.layout.operator(SGVIEW_OT_stop.bl_idname)


class SgviewSettings(bpy.types.PropertyGroup):
    address: bpy.props.StringProperty(  # type: ignore[valid-type]  # bpy's annotation form
        name="Address", default="127.0.0.1:7878", description="Where sgview listen listens"
    )
    program: bpy.props.StringProperty(  # type: ignore[valid-type]  # bpy's annotation form
        name="Name", default="", description="The name sgview shows (empty: the file's)"
    )


_CLASSES = (SgviewSettings, SGVIEW_OT_publish, SGVIEW_OT_stop, SGVIEW_PT_panel)


def _stop() -> None:
    while _published:
        _published.pop().close()


def register() -> None:
    for cls in _CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.sgview = bpy.props.PointerProperty(type=SgviewSettings)


def unregister() -> None:
    _stop()
    del bpy.types.Scene.sgview
    for cls in reversed(_CLASSES):
        bpy.utils.unregister_class(cls)
