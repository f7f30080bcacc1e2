"""``viewer.blender.publish(address)``: every Blender frame sent to ``sgview listen``.

Blender's handlers call the publisher after each evaluation: ``frame_change_post`` (playback,
``scene.frame_set``) and ``depsgraph_update_post`` (an edit). Each call is one frame: the
recomputed nodes are the objects in ``depsgraph.updates`` whose transform was re-evaluated
(``is_updated_transform``) and every bone of an armature whose pose was (its object
updated at all: Blender re-evaluates a pose with its object's geometry, and its Python API
names IDs, not bones). Their world matrices are Blender's own (``matrix_world``, and the
armature's ``matrix_world @ pose_bone.matrix`` for a bone), turned Y-up once by the scene's
root node. Blender's thread only reads the update list and those matrices (copies of the
moved objects' matrices, the bones' into buffers); a thread of the publisher's own turns
them into arrays, computes the rest (one compiled call: worlds, locals, causes) and hands
the frame to `viewer.attach.publisher.Link`, as a Python graph's frame goes:
`PublishedNodes` is what the link reads.

docs/blender.md says what is a node, what "recomputed" and each cause mean, and the
conventions.
"""

from __future__ import annotations

import re
import threading
import time
import traceback
from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np
from numpy.typing import NDArray

from viewer.attach.publisher import DEFAULT_ADDRESS, Link
from viewer.scene.report import FrameReport

from .kernels import publish_frame, read_frame
from .nodes import PublishedNodes

if TYPE_CHECKING:
    from viewer.scene.graph import SceneGraph

__all__ = ["BlenderLink", "Y_UP", "publish"]

#: Blender's Z-up frame turned to sgview's Y-up one (-90 degrees about X: x, y, z -> x, z, -y),
#: both right-handed: the scene root's rotation.
Y_UP = np.array(
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
)

Key = tuple[Any, ...]  # ("scene",), ("o", session_uid) or ("b", armature's uid, bone name)
ROOT: Key = ("scene",)
# What Blender's thread reads for a frame: per moved object (by uid) copies of its
# ``matrix_world`` and ``matrix_basis``; the posed armatures' indices (their bones' matrices
# are in the bone buffers). Python objects only: the arrays are made on the frames' thread.
Moved = dict[int, tuple[Any, Any]]
# What the compiled frame reads (`BlenderLink._arrays`): the root's id, the moved objects'
# ids and matrices, the posed armatures' indices, the bone layout and buffers.
_I64 = NDArray[np.int64]
_F32 = NDArray[np.float32]
Read = tuple[int, _I64, NDArray[np.float64], _I64, _I64, _I64, _I64, _F32, _F32]
#: How often the frames' thread looks for a frame while Blender plays (and how long a frame
#: it found waits before its work starts), and after how long without one it sleeps until
#: woken.
POLL_SECONDS = 0.002
IDLE_SECONDS = 1.0
_OBJECT = bpy.types.Object
_ARMATURE = bpy.types.Armature
_RELATIONS = (bpy.types.Scene, bpy.types.Collection)
_BONE_PATH = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]')


class BlenderLink:
    """The scene published (what `publish` returns): `close` stops it. ``link`` is the
    attach `Link` underneath (``connected``, ``wait_connected``, ``flush``...)."""

    def __init__(self, address: str, *, name: str | None = None, token: str | None = None) -> None:
        self.nodes = PublishedNodes()
        # Link reads a graph through PublishedNodes' methods only (nodes.py names them).
        graph = cast("SceneGraph", self.nodes)
        self.link = Link(graph, address, name=name or _default_name(), token=token)
        #: Frames sent (the frame numbers the viewer shows: 1, 2, ...).
        self.frames = 0
        self._ids: dict[Key, int] = {}
        self._fresh = False  # the rows hold the scene as it is (else: read it all)
        self._scene_uid = -1
        self._object_count = -1
        self._objects: dict[int, tuple[Any, int, tuple[Any, ...]]] = {}  # uid: obj, id, sig
        self._armatures: dict[int, tuple[NDArray[np.int64], int]] = {}  # uid: bone ids, id
        # The bones of every armature in one float32 buffer (an armature's rows: its
        # index's slice), which Blender's foreach_get fills and the compiled frame reads.
        self._pose_rows: dict[int, tuple[int, NDArray[np.float32], NDArray[np.float32]]] = {}
        self._armature_node = np.zeros(0, dtype=np.int64)
        self._every_armature = np.zeros(0, dtype=np.int64)
        self._bone_start = np.zeros(1, dtype=np.int64)
        self._bone_ids = np.zeros(0, dtype=np.int64)
        self._pose = np.zeros(0, dtype=np.float32)
        self._pose_basis = np.zeros(0, dtype=np.float32)
        # Per id, the channels (matrix_basis) last sent, to tell which of them changed.
        self._last_basis = np.zeros((0, 16), dtype=np.float32)
        self._has_basis = np.zeros(0, dtype=np.bool_)
        self._slot = np.zeros(0, dtype=np.int64)
        self._bone = np.zeros(0, dtype=bool)
        self._node_count = 0
        # Blender's thread reads Blender's data into buffers; the rest of a frame (the
        # compiled worlds, locals and causes, the report, the link's copy of the rows)
        # runs on this thread, while Blender goes on. One frame at a time: Blender's
        # thread waits for ``_idle`` before it writes a buffer or a row again.
        self._idle = threading.Event()
        self._idle.set()
        # While frames come, the thread looks for one every POLL_SECONDS instead of being
        # woken per frame: a wake costs Blender's thread a context switch on shared cores.
        self._jobs: deque[tuple[Moved, list[int], int, bool]] = deque()
        self._asleep = False
        self._wake = threading.Event()
        self._closing = False
        self._worker = threading.Thread(
            target=self._work, name="sgview-blender-frames", daemon=True
        )
        self._worker.start()
        # Per node, the nodes its constraints and drivers read: starts (one per id, and
        # one more) into a flat array of targets.
        self._constraint = _compressed({}, 0)
        self._driver = _compressed({}, 0)
        # Held reasons (docs/attach.md, "Held worlds"): a constraint or IK may leave a world
        # no position, rotation and scale can give (IK's stretch, a shear), which the viewer
        # would otherwise flag stale. A scan sets the next ones; the frames' thread, which
        # owns the link's side, hands them on before its next report.
        self._reasons_next: dict[int, str] | None = None
        self._reasoned: set[int] = set()
        self._naive = 0
        self._handlers = [
            (bpy.app.handlers.frame_change_post, _persistent(self._frame, edit=False)),
            (bpy.app.handlers.depsgraph_update_post, _persistent(self._frame, edit=True)),
        ]
        for handlers, handler in self._handlers:
            handlers.append(handler)
        # In Blender's application (not in a bpy program, which runs no timers): the scene
        # goes to a viewer as soon as it connects, not at the next frame or edit.
        self._timer = self._on_timer  # one object: Blender's timers know a function by it
        bpy.app.timers.register(self._timer, first_interval=0.5, persistent=True)

    @property
    def connected(self) -> bool:
        return self.link.connected

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self.link.wait_connected(timeout)

    def flush(self, timeout: float = 5.0) -> bool:
        return self._idle.wait(timeout) and self.link.flush(timeout)

    def close(self, timeout: float = 2.0) -> None:
        """Stop publishing; what is queued is sent first (as `Link.close`)."""
        for handlers, handler in self._handlers:
            if handler in handlers:
                handlers.remove(handler)
        if bpy.app.timers.is_registered(self._timer):
            bpy.app.timers.unregister(self._timer)
        self._closing = True
        self._wake.set()
        self._worker.join(timeout)
        self.link.close(timeout)

    # -- Blender's handlers ----------------------------------------------------------------
    def _on_timer(self) -> float:
        if self.link.connected and not self._fresh:
            self._frame(bpy.context.scene, None, edit=True)
        return 0.5

    def _frame(self, scene: Any, depsgraph: Any, edit: bool) -> None:
        """One evaluation (the handlers'). With 40 ms between Blender's frames each step
        here starts with cold caches, so it does only what needs Blender's data: the
        update list read, the moved objects' matrices copied, the posed bones' matrices
        read into buffers; the arrays and the rest are the frames' thread's."""
        if not self.link.connected:
            self._fresh = False  # read everything again once a viewer is there
            return
        if depsgraph is None:
            depsgraph = bpy.context.evaluated_depsgraph_get()
        if not self._idle.is_set():  # the frame before is not out of the rows and buffers
            self._idle.wait()
        moved: Moved = {}  # uid: matrices of an object whose transform was re-evaluated
        posed: dict[int, Any] = {}  # uid: evaluated object, its pose maybe re-evaluated
        rescan = not self._fresh or scene.session_uid != self._scene_uid
        # Blender lists the scene (or a collection) when it rebuilt the relations: an
        # object added, removed, re-parented, linked or unlinked. Only then are the
        # objects' places compared (a rename lists the object alone: its name is).
        relations = False
        objects = self._objects
        listed = []
        for update in depsgraph.updates:
            data = update.id
            if isinstance(data, _OBJECT):
                uid = data.original.session_uid
                known = objects.get(uid)
                if known is None or data.name != known[2][0]:
                    rescan = True
                listed.append(uid)
                if update.is_updated_transform:
                    # Copies: Blender's matrices read later would be another frame's.
                    moved[uid] = (data.matrix_world.copy(), data.matrix_basis.copy())
                    posed[uid] = data
                elif update.is_updated_geometry:
                    posed[uid] = data
            elif isinstance(data, _ARMATURE):
                rescan = True  # bones added, removed, renamed or re-parented (an edit)
            elif isinstance(data, _RELATIONS):
                relations = True
        if relations and not rescan:
            rescan = len(scene.objects) != self._object_count or any(
                _signature(objects[uid][0]) != objects[uid][2] for uid in listed
            )
        changed = self._scan(scene, depsgraph) if rescan else False
        armatures = self._read_poses(posed)
        if edit and not (armatures or changed or any(u in self._objects for u in moved)):
            return  # an edit of something else than transforms (a material, a selection)
        self.frames += 1
        self._idle.clear()
        self._jobs.append((moved, armatures, self.frames, changed))
        if self._asleep:
            self._wake.set()

    # -- the hierarchy ---------------------------------------------------------------------
    def _scan(self, scene: Any, depsgraph: Any) -> bool:
        """Read the whole scene: its hierarchy, every world matrix, what drives what.
        Returns whether the hierarchy differs from the one sent before."""
        objects = list(scene.objects)
        by_uid = {o.session_uid: o for o in objects}
        bone_kids: defaultdict[Key, list[Key]] = defaultdict(list)
        object_kids: defaultdict[Key, list[Key]] = defaultdict(list)
        names: dict[Key, str] = {ROOT: scene.name}
        for obj in sorted(objects, key=lambda o: o.name):
            key = ("o", obj.session_uid)
            names[key] = obj.name
            object_kids[_shown_parent(obj, by_uid)].append(key)
            if obj.type == "ARMATURE" and obj.pose is not None:
                for bone in obj.pose.bones:
                    bone_key = ("b", obj.session_uid, bone.name)
                    names[bone_key] = bone.name
                    parent = bone.parent
                    up = key if parent is None else ("b", obj.session_uid, parent.name)
                    bone_kids[up].append(bone_key)
        order: list[Key] = []
        up_of: dict[Key, Key | None] = {ROOT: None}
        stack = [ROOT]
        while stack:  # pre-order: a node, then its bones, then its objects
            key = stack.pop()
            order.append(key)
            kids = bone_kids.get(key, []) + object_kids.get(key, [])
            for kid in kids:
                up_of[kid] = key
            stack.extend(reversed(kids))
        ids = {key: self._ids.get(key, -1) for key in order}
        for key, i in ids.items():
            if i < 0:
                ids[key] = self.nodes.new_id(names[key])
        self._ids = ids
        id_order = np.array([ids[k] for k in order], dtype=np.int64)
        parent_ids = np.array(
            [-1 if up_of[k] is None else ids[cast(Key, up_of[k])] for k in order], dtype=np.int64
        )
        changed = self.nodes.set_structure(id_order, parent_ids, [names[k] for k in order])
        size = self.nodes.capacity_ids
        self._node_count = int(id_order.size)
        self._slot = np.full(size, -1, dtype=np.int64)
        self._slot[id_order] = np.arange(id_order.size)
        depth = np.zeros(size, dtype=np.int64)
        for i, p in zip(id_order.tolist(), parent_ids.tolist()):
            depth[i] = 0 if p < 0 else depth[p] + 1
        self._naive = int(depth[id_order].sum())
        self._objects = {
            o.session_uid: (o, ids[("o", o.session_uid)], _signature(o)) for o in objects
        }
        self._armatures = {
            o.session_uid: (
                np.array([ids[("b", o.session_uid, b.name)] for b in o.pose.bones], np.int64),
                ids[("o", o.session_uid)],
            )
            for o in objects
            if o.type == "ARMATURE" and o.pose is not None
        }
        self._bone = np.zeros(size, dtype=bool)
        for bones, _ in self._armatures.values():
            self._bone[bones] = True
        self._lay_out_bones(size)
        self._object_count = len(objects)
        self._scene_uid = scene.session_uid
        self._drives(objects)
        # Every row read again (the scene root first: the Y-up turn and the unit scale).
        unit = float(scene.unit_settings.scale_length)
        root = Y_UP @ np.diag([unit, unit, unit, 1.0])
        self.nodes.set_worlds(np.array([ids[ROOT]]), root[None])
        everything = {uid: o.evaluated_get(depsgraph) for uid, (o, _, _) in self._objects.items()}
        moved = {
            uid: (e.matrix_world.copy(), e.matrix_basis.copy()) for uid, e in everything.items()
        }
        world, parents, *_ = self.nodes.rows()
        read_frame(
            *self._arrays(moved, self._read_poses(everything)),
            world, parents, self._slot, self._last_basis, self._has_basis, False,
        )  # fmt: skip
        self.nodes.derive_locals(id_order)
        self._fresh = True
        return changed

    def _lay_out_bones(self, size: int) -> None:
        """Every armature's bones in one buffer's rows; the channels kept per id grown to
        ``size`` ids (ids are never handed out again, so a row keeps its id's channels)."""
        nodes, starts, bone_ids = [], [0], []
        for bones, own in self._armatures.values():
            nodes.append(own)
            bone_ids.append(bones)
            starts.append(starts[-1] + bones.size)
        self._armature_node = np.array(nodes, dtype=np.int64)
        self._every_armature = np.arange(len(nodes), dtype=np.int64)  # all posed (playback)
        self._bone_start = np.array(starts, dtype=np.int64)
        self._bone_ids = np.concatenate([np.zeros(0, dtype=np.int64), *bone_ids])
        self._pose = np.zeros(16 * starts[-1], dtype=np.float32)
        self._pose_basis = np.zeros(16 * starts[-1], dtype=np.float32)
        self._pose_rows = {
            uid: (a, self._pose[16 * starts[a] : 16 * starts[a + 1]],
                  self._pose_basis[16 * starts[a] : 16 * starts[a + 1]])
            for a, uid in enumerate(self._armatures)
        }  # fmt: skip
        grown = size - self._has_basis.size
        if grown > 0:
            self._last_basis = np.concatenate(
                (self._last_basis, np.zeros((grown, 16), dtype=np.float32))
            )
            self._has_basis = np.concatenate((self._has_basis, np.zeros(grown, dtype=np.bool_)))

    def _drives(self, objects: list[Any]) -> None:
        """Per node, the nodes its constraints and drivers read (the causes they give)."""
        constraint: defaultdict[int, list[int]] = defaultdict(list)
        driver: defaultdict[int, list[int]] = defaultdict(list)
        reasons: dict[int, str] = {}
        for obj in objects:
            uid, own = obj.session_uid, self._ids[("o", obj.session_uid)]
            for c in obj.constraints:
                constraint[own] += self._targets(c)
            if any(c.enabled for c in obj.constraints):
                reasons[own] = "constraint"
            bones = obj.pose.bones if obj.type == "ARMATURE" and obj.pose is not None else ()
            for bone in bones:
                targets = [t for c in bone.constraints for t in self._targets(c)]
                chain: Any = bone
                reach = max((c.chain_count for c in bone.constraints if c.type == "IK"), default=1)
                ik = any(c.type == "IK" and c.enabled for c in bone.constraints)
                if any(c.enabled for c in bone.constraints):
                    reasons[self._ids[("b", uid, bone.name)]] = "ik" if ik else "constraint"
                for _ in range(reach if reach > 0 else 1 << 30):  # IK turns its chain
                    if chain is None:
                        break
                    node = self._ids[("b", uid, chain.name)]
                    constraint[node] += targets
                    if ik:
                        reasons[node] = "ik"
                    chain = chain.parent if any(c.type == "IK" for c in bone.constraints) else None
            data = obj.animation_data
            for curve in data.drivers if data is not None else ():
                bone_name = _BONE_PATH.match(curve.data_path)
                target = ("b", uid, bone_name.group(1)) if bone_name else ("o", uid)
                if target not in self._ids:
                    continue
                for variable in curve.driver.variables:
                    for t in variable.targets:
                        if isinstance(t.id, bpy.types.Object):
                            found = self._node_of(t.id, getattr(t, "bone_target", ""))
                            driver[self._ids[target]] += [] if found is None else [found]
        self._constraint = _compressed(constraint, self.nodes.capacity_ids)
        self._driver = _compressed(driver, self.nodes.capacity_ids)
        self._reasons_next = reasons

    def _targets(self, constraint: Any) -> list[int]:
        found = []
        for target, bone in (("target", "subtarget"), ("pole_target", "pole_subtarget")):
            obj = getattr(constraint, target, None)
            if isinstance(obj, bpy.types.Object):
                node = self._node_of(obj, getattr(constraint, bone, ""))
                if node is not None:
                    found.append(node)
        return found

    def _node_of(self, obj: Any, bone: str) -> int | None:
        uid = obj.session_uid
        return self._ids.get(("b", uid, bone)) if bone else self._ids.get(("o", uid))

    # -- a frame ---------------------------------------------------------------------------
    def _read_poses(self, posed: dict[int, Any]) -> list[int]:
        """The ``posed`` armatures' bones' pose matrices and channels read into the bone
        buffer (objects that are no armatures, or none of the scene, left out); returns
        the armatures' indices."""
        armatures = []
        rows = self._pose_rows
        for uid, armature in posed.items():
            row = rows.get(uid)
            if row is not None and row[1].size:
                bones = armature.pose.bones
                bones.foreach_get("matrix", row[1])
                bones.foreach_get("matrix_basis", row[2])
                armatures.append(row[0])
        return armatures

    def _arrays(self, moved: Moved, armatures: list[int]) -> Read:
        """What the compiled frame reads: the ``moved`` objects' ids (those of the scene)
        with their ``matrix_world`` and ``matrix_basis``, the posed ``armatures``' indices
        and the bone layout and buffers."""
        objects = self._objects
        known = [(objects[uid][1], pair) for uid, pair in moved.items() if uid in objects]
        if known:
            ids = np.array([i for i, _ in known], dtype=np.int64)
            matrices = np.array([pair for _, pair in known], dtype=np.float64)
        else:
            ids, matrices = _NO_IDS, _NO_MATRICES
        every = self._every_armature
        return (
            self._ids[ROOT], ids, matrices,
            every if len(armatures) == every.size else np.array(armatures, dtype=np.int64),
            self._armature_node, self._bone_start, self._bone_ids, self._pose, self._pose_basis,
        )  # fmt: skip

    def _work(self) -> None:
        """The frames' thread: each frame's worlds, locals and causes stored (one compiled
        call), then its report to the link, which copies the rows it sends."""
        last = time.monotonic()
        settled = False
        while not self._closing or self._jobs:
            if not self._jobs:
                settled = False
                if time.monotonic() - last < IDLE_SECONDS:
                    time.sleep(POLL_SECONDS)
                    continue
                self._asleep = True  # before the queue is looked at: no frame waits unseen
                if not self._jobs and not self._closing:
                    self._wake.wait()
                self._wake.clear()
                self._asleep = False
                continue
            if not settled:
                # A frame just queued: Blender's `frame_set` may still be running, and work
                # now would compete with it for the GIL and the shared cores (the bench's
                # frame_set was 0.1 ms slower so); one poll later it is done.
                settled = True
                time.sleep(POLL_SECONDS)
                continue
            try:
                self._publish(*self._jobs.popleft())
            except Exception:  # a frame lost is no reason to stop the next ones
                traceback.print_exc()
            finally:
                self._idle.set()
            last = time.monotonic()

    def _publish(self, moved: Moved, armatures: list[int], frame: int, changed: bool) -> None:
        reasons, self._reasons_next = self._reasons_next, None
        if reasons is not None:
            for node in self._reasoned - reasons.keys():
                self.link.hold(node, "")
            for node, why in reasons.items():
                self.link.hold(node, why)
            self._reasoned = set(reasons)
        world, parents, pos, rot, scl = self.nodes.rows()
        driver_start, drivers = self._driver
        constraint_start, constraints = self._constraint
        recomputed, cause = publish_frame(
            *self._arrays(moved, armatures), world, parents, self._slot, self._last_basis,
            self._has_basis, self._bone, pos, rot, scl, driver_start, drivers, constraint_start,
            constraints,
        )  # fmt: skip
        self.nodes.emit(
            FrameReport(
                frame=frame,
                local_updated=recomputed,
                world_updated=recomputed,
                cause=cause,
                executed=recomputed,
                products=int(recomputed.size),
                naive_products=self._naive,
                node_count=self._node_count,
                structure_changed=changed,
                _name_of=self.nodes.name_of,
            )
        )


_NO_IDS = np.zeros(0, dtype=np.int64)
_NO_MATRICES = np.zeros((0, 2, 4, 4))


def _compressed(
    targets: dict[int, list[int]], size: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``targets`` (each id's list, in order, once each) as starts and one flat array."""
    lists = [list(dict.fromkeys(targets.get(i, ()))) for i in range(size)]
    counts = np.array([len(t) for t in lists], dtype=np.int64)
    starts = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    flat = np.array([t for each in lists for t in each], dtype=np.int64)
    return starts, flat


def _shown_parent(obj: Any, by_uid: dict[int, Any]) -> Key:
    """The node an object is shown under: its parent bone (parent type BONE), else its
    parent object (any other parent type), else the scene root (no parent, or one that
    is not in the scene)."""
    parent = obj.parent
    if parent is None or parent.session_uid not in by_uid:
        return ROOT
    if (
        obj.parent_type == "BONE"
        and parent.pose is not None
        and obj.parent_bone in parent.pose.bones
    ):
        return ("b", parent.session_uid, obj.parent_bone)
    return ("o", parent.session_uid)


def _signature(obj: Any) -> tuple[Any, ...]:
    """What places an object in the hierarchy (a change means reading it again); a
    removed object has none."""
    try:
        parent = obj.parent
        return (obj.name, parent and parent.session_uid, obj.parent_type, obj.parent_bone)
    except ReferenceError:
        return ("removed",)


def _persistent(frame: Any, edit: bool) -> Any:
    """``frame`` as a handler (an edit's or a frame change's) that stays registered when
    another .blend file is opened."""

    def call(scene: Any, depsgraph: Any = None) -> None:
        frame(scene, depsgraph, edit)

    return bpy.app.handlers.persistent(call)


def _default_name() -> str:
    path = bpy.data.filepath
    return path.rsplit("/", 1)[-1] if path else "Blender"


def publish(
    address: str = DEFAULT_ADDRESS, *, name: str | None = None, token: str | None = None
) -> BlenderLink:
    """Send every Blender frame from now on (playback, ``scene.frame_set``, an edit) to
    the viewer listening at ``address`` (``sgview listen``); returns at once. ``name``:
    the program's name in the viewer (default: the .blend file's, or "Blender");
    ``token``: what a viewer listening beyond loopback asks for (default:
    ``SGVIEW_TOKEN``)."""
    return BlenderLink(address, name=name, token=token)
