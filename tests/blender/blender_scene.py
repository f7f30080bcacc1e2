"""Run by the Python that has ``bpy`` (SGVIEW_BLENDER_PYTHON): builds a scene in code,
publishes it with `viewer.blender.publish` to each address given, plays it with
``scene.frame_set`` (structure changes and an edit on the way), and writes what Blender
itself said, recorded by a handler of this script's own: per frame, the objects in
``depsgraph.updates`` with ``is_updated_transform``, the armatures updated (their pose
re-evaluated), and every node's world matrix (``matrix_world``, a bone's
``armature.matrix_world @ pose_bone.matrix``), turned Y-up.

    python blender_scene.py OUT.json FRAMES HOST:PORT [HOST:PORT ...]

The scene: a keyframed chain with parent inverse matrices (Base > Arm1 > Arm2 > Tip),
an object on a mesh's vertex (VERTEX parent), a 12-bone rig whose object and first bones
are keyframed, with an IK constraint to a keyframed target and an object parented to a
bone, a follower with a Copy Location constraint, a driven object (driver on Base's x),
and an object that stays still. During play: an object added (frame 30), re-parented
(50), removed (70), and an edit outside playback (frame 90: Still moved).
"""

from __future__ import annotations

import json
import math
import sys

import bpy
import numpy as np

import viewer.blender

Y_UP = np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, -1.0, 0, 0], [0, 0, 0, 1.0]])
BONES = 12


def empty(name, parent=None, location=(0.0, 0.0, 0.0)):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    obj.location = location
    if parent is not None:
        parent_keeping_world(obj, parent)
    return obj


def parent_keeping_world(obj, parent, kind="OBJECT"):
    """As Ctrl+P does: the parent inverse matrix keeps the object where it was."""
    bpy.context.view_layer.update()
    world = obj.matrix_world.copy()
    obj.parent = parent
    obj.parent_type = kind
    bpy.context.view_layer.update()
    obj.matrix_parent_inverse = (obj.matrix_world @ world.inverted()).inverted() @ (
        obj.matrix_parent_inverse
    )
    bpy.context.view_layer.update()


def keys(obj, path, frames_values):
    for frame, value in frames_values:
        setattr(obj, path, value)
        obj.keyframe_insert(path, frame=frame)


def build():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 250
    base = empty("Base", location=(1.0, 0.5, 0.0))
    base.scale = (1.5, 1.5, 1.5)
    keys(base, "location", [(1, (1.0, 0.5, 0.0)), (60, (4.0, -2.0, 1.0)), (120, (0.0, 1.0, 2.0))])
    keys(base, "rotation_euler", [(1, (0.0, 0.0, 0.0)), (120, (0.3, 0.0, 2.0))])
    arm1 = empty("Arm1", location=(2.0, 0.0, 0.5))
    parent_keeping_world(arm1, base)
    arm2 = empty("Arm2", location=(3.0, 1.0, 0.5))
    parent_keeping_world(arm2, arm1)
    keys(arm2, "rotation_euler", [(1, (0.0, 0.0, 0.0)), (80, (0.0, 1.2, 0.0))])
    empty("Tip", arm2, location=(3.5, 1.0, 1.0))

    mesh = bpy.data.meshes.new("PlateMesh")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0.5)], [], [(0, 1, 2, 3)])
    plate = bpy.data.objects.new("Plate", mesh)
    scene.collection.objects.link(plate)
    plate.location = (-2.0, 0.0, 0.0)
    keys(plate, "rotation_euler", [(1, (0.0, 0.0, 0.0)), (100, (0.0, 0.0, math.pi))])
    on_vertex = empty("OnVertex", location=(0.0, 0.0, 0.3))
    on_vertex.parent = plate
    on_vertex.parent_type = "VERTEX"
    on_vertex.parent_vertices[0] = 3

    armature = bpy.data.armatures.new("RigData")
    rig = bpy.data.objects.new("Rig", armature)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    previous = None
    for k in range(BONES):
        bone = armature.edit_bones.new(f"bone{k}")
        bone.head, bone.tail = (0.0, 0.0, 0.5 * k), (0.0, 0.1 * (k % 2), 0.5 * k + 0.5)
        if previous is not None:
            bone.parent, bone.use_connect = previous, True
        previous = bone
    side = armature.edit_bones.new("sidebone")
    side.head, side.tail, side.parent = (
        (0.0, 0.0, 1.0),
        (0.5, 0.0, 1.0),
        armature.edit_bones["bone2"],
    )
    bpy.ops.object.mode_set(mode="OBJECT")
    keys(rig, "location", [(1, (0.0, 3.0, 0.0)), (40, (0.0, 3.0, 0.0)), (110, (1.0, 4.0, 0.5))])
    for k in range(3):
        pose = rig.pose.bones[f"bone{k}"]
        pose.rotation_mode = "XYZ"
        keys(pose, "rotation_euler", [(1, (0.0, 0.0, 0.0)), (90, (0.2 * (k + 1), 0.0, 0.1))])
    target = empty("IKTarget", location=(1.0, 3.0, 5.0))
    keys(target, "location", [(1, (1.0, 3.0, 5.0)), (120, (-1.0, 4.0, 3.0))])
    ik = rig.pose.bones[f"bone{BONES - 1}"].constraints.new("IK")
    ik.target, ik.chain_count = target, 5
    on_bone = empty("OnBone")
    on_bone.parent, on_bone.parent_type, on_bone.parent_bone = rig, "BONE", "bone6"
    on_bone.location = (0.2, 0.0, 0.0)

    follower = empty("Follower", location=(0.0, -3.0, 0.0))
    copy = follower.constraints.new("COPY_LOCATION")
    copy.target, copy.use_offset = base, True

    driven = empty("Driven", location=(0.0, -5.0, 0.0))
    curve = driven.driver_add("location", 2)
    variable = curve.driver.variables.new()
    variable.name, variable.type = "x", "SINGLE_PROP"
    variable.targets[0].id = base
    variable.targets[0].data_path = "location.x"
    curve.driver.expression = "x * 2"
    empty("Still", location=(5.0, 5.0, 0.0))
    bpy.context.view_layer.update()
    return scene


def record(scene, depsgraph, kind, out):
    """Blender's own account of one evaluation: its update lists and every matrix."""
    moved, posed = [], []
    for update in depsgraph.updates:
        if not isinstance(update.id, bpy.types.Object):
            continue
        obj = update.id.original
        if update.is_updated_transform:
            moved.append(obj.name)
        if obj.type == "ARMATURE" and (update.is_updated_transform or update.is_updated_geometry):
            posed.append(obj.name)
    worlds = {scene.name: Y_UP.tolist()}
    for obj in scene.objects:
        world = Y_UP @ np.array(obj.matrix_world)
        worlds[obj.name] = world.tolist()
        if obj.type == "ARMATURE":
            for pose in obj.pose.bones:
                worlds[pose.name] = (world @ np.array(pose.matrix)).tolist()
    bones = {o.name: [b.name for b in o.pose.bones] for o in scene.objects if o.type == "ARMATURE"}
    out.append(
        {
            "kind": kind,
            "blender_frame": scene.frame_current,
            "moved": moved,
            "posed": posed,
            "bones": bones,
            "worlds": worlds,
        }
    )


def main() -> int:
    path, frames, addresses = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    scene = build()
    out: list[dict] = []
    bpy.app.handlers.frame_change_post.append(lambda s, d: record(s, d, "frame", out))
    bpy.app.handlers.depsgraph_update_post.append(lambda s, d: record(s, d, "edit", out))
    links = [viewer.blender.publish(a, name="blender test") for a in addresses]
    if not all(link.wait_connected(60) for link in links):
        print("no viewer welcomed the publisher", file=sys.stderr)
        return 1
    out.clear()  # what came before the viewers (the links sent nothing then)
    newcomer = None
    for frame in range(1, frames + 1):
        if frame == 30:
            newcomer = empty("Newcomer", location=(0.0, 0.0, 2.0))
            parent_keeping_world(newcomer, bpy.data.objects["Arm1"])
        elif frame == 50:
            parent_keeping_world(bpy.data.objects["Driven"], bpy.data.objects["Arm2"])
        elif frame == 70 and newcomer is not None:
            bpy.data.objects.remove(newcomer)
            newcomer = None
        elif frame == 90:
            bpy.data.objects["Still"].location = (5.0, 6.0, 1.0)
            bpy.context.view_layer.update()
        elif frame == 110:  # renamed: one that moves, one that Blender lists for the name only
            bpy.data.objects["Tip"].name = "Tip renamed"
            bpy.data.objects["Still"].name = "Still renamed"
        scene.frame_set(frame)
        for link in links:  # one message per frame: nothing merged by a full queue
            if not link.flush(30):
                print(f"frame {frame} not sent", file=sys.stderr)
                return 1
    sent = [link.frames for link in links]
    for link in links:
        link.close()
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"frames": out, "sent": sent}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
