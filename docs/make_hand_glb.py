"""Make a hand-like glTF model in code, about 10 cm across, as a real .glb file.

    .venv/bin/python docs/make_hand_glb.py /tmp/hand.glb      # then: sgview /tmp/hand.glb

No package on the registry ships the usual controller or hand models, so this script
builds one the size and shape of those files: 29 nodes in metres (a forearm stub, a wrist,
a palm, five fingers of three phalanges with a tip marker each, and markers for the palm
centre, the grip, the knuckles, the pinch point and the aim ray), one box mesh per
phalanx and one for the palm with a skin-coloured material, and a looping "Curl"
animation that closes and opens the fingers (LINEAR rotation keys). It is written with
plain JSON and one binary buffer in the project's own .glb container
(`viewer.io.gltf_write.container.glb_bytes`).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

FLOAT, USHORT = 5126, 5123
SKIN = [0.86, 0.66, 0.52, 1.0]
#: Seconds of one close-and-open of the fingers.
CURL_SECONDS = 2.0
#: Degrees each joint bends when the hand is closed (proximal, middle, distal).
CURL_DEGREES = (55.0, 70.0, 45.0)
THUMB_CURL_DEGREES = (20.0, 35.0, 40.0)

#: (finger, base position on the palm, phalanx lengths, width), metres.
FINGERS = [
    ("Index", (0.0165, 0.052, 0.0), (0.024, 0.016, 0.013), 0.0115),
    ("Middle", (0.0055, 0.054, 0.0), (0.027, 0.018, 0.014), 0.0115),
    ("Ring", (-0.0055, 0.052, 0.0), (0.025, 0.017, 0.013), 0.0105),
    ("Little", (-0.0165, 0.048, 0.0), (0.019, 0.013, 0.012), 0.0095),
]
PHALANGES = ("Proximal", "Middle", "Distal")
THUMB_BASE = (0.02, 0.008, 0.004)
THUMB_LENGTHS = (0.022, 0.019, 0.015)  # metacarpal, proximal, distal
THUMB_WIDTH = 0.0125
PALM = (0.046, 0.052, 0.016)  # width, length, thickness


def axis_quat(axis, degrees: float) -> list[float]:
    """A unit quaternion (x, y, z, w) turning `degrees` about `axis`."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    half = math.radians(degrees) / 2
    return [*(a * math.sin(half)).tolist(), math.cos(half)]


def box(width: float, length: float, thickness: float):
    """A box from y = 0 to y = `length` (a bone grows along +y): positions, normals and
    indices, four vertices per face so each face has its own normal."""
    hx, hz = width / 2, thickness / 2
    lo = np.array([-hx, 0.0, -hz])
    hi = np.array([hx, length, hz])
    pos, nrm, idx = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = [a for a in range(3) if a != axis]
            normal = np.zeros(3)
            normal[axis] = sign
            corners = []
            for cu, cv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = np.where(sign > 0, hi, lo).astype(float)
                p[u] = (lo, hi)[cu][u]
                p[v] = (lo, hi)[cv][v]
                corners.append(p)
            base = len(pos)
            pos += corners
            nrm += [normal] * 4
            a, b, c, d = base, base + 1, base + 2, base + 3
            # Counter-clockwise seen from outside.
            if np.dot(np.cross(corners[1] - corners[0], corners[2] - corners[0]), normal) > 0:
                idx += [a, b, c, a, c, d]
            else:
                idx += [a, c, b, a, d, c]
    return (np.array(pos, np.float32), np.array(nrm, np.float32), np.array(idx, np.uint16))


class _Buffer:
    """The binary buffer with its bufferViews and accessors."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, array: np.ndarray, ctype: int, kind: str, target: int | None = None) -> int:
        self.data += b"\0" * (-len(self.data) % 4)
        view = {"buffer": 0, "byteOffset": len(self.data), "byteLength": array.nbytes}
        if target is not None:
            view["target"] = target
        self.data += array.tobytes()
        self.views.append(view)
        accessor = {
            "bufferView": len(self.views) - 1,
            "componentType": ctype,
            "count": len(array),
            "type": kind,
        }
        if kind == "VEC3" and array.ndim == 2:
            accessor["min"] = array.min(axis=0).tolist()
            accessor["max"] = array.max(axis=0).tolist()
        if kind == "SCALAR" and ctype == FLOAT:
            accessor["min"], accessor["max"] = [float(array.min())], [float(array.max())]
        self.accessors.append(accessor)
        return len(self.accessors) - 1


class _Hand:
    """Collects nodes, meshes and the curl channels while the hand is laid out."""

    def __init__(self) -> None:
        self.buffer = _Buffer()
        self.nodes: list[dict] = []
        self.meshes: list[dict] = []
        self.curls: list[tuple[int, list[float], list[float]]] = []  # node, open, closed

    def node(self, name: str, parent: int | None, translation=(0.0, 0.0, 0.0), **extra) -> int:
        self.nodes.append({"name": name, "translation": [float(v) for v in translation]})
        self.nodes[-1].update(extra)
        index = len(self.nodes) - 1
        if parent is not None:
            self.nodes[parent].setdefault("children", []).append(index)
        return index

    def mesh(self, width: float, length: float, thickness: float) -> int:
        pos, nrm, idx = box(width, length, thickness)
        b = self.buffer
        prim = {
            "attributes": {
                "POSITION": b.add(pos, FLOAT, "VEC3", 34962),
                "NORMAL": b.add(nrm, FLOAT, "VEC3", 34962),
            },
            "indices": b.add(idx, USHORT, "SCALAR", 34963),
            "material": 0,
        }
        self.meshes.append({"primitives": [prim]})
        return len(self.meshes) - 1

    def chain(
        self,
        finger: str,
        parent: int,
        base,
        rotation,
        names,
        lengths,
        width: float,
        curl_axis,
        degrees,
    ) -> None:
        """Phalanges one after the other along +y from `base` on the palm, each with its
        mesh and a curl key, then the tip marker."""
        at, turn = base, rotation
        for name, length, bend in zip(names, lengths, degrees):
            extra = {"mesh": self.mesh(width, length, 0.85 * width)}
            if turn is not None:
                extra["rotation"] = turn
            parent = self.node(f"{finger}_{name}", parent, at, **extra)
            rest = turn or [0.0, 0.0, 0.0, 1.0]
            self.curls.append((parent, rest, _times(rest, axis_quat(curl_axis, bend))))
            at, turn, width = (0.0, length, 0.0), None, 0.9 * width
        self.node(f"{finger}_Tip", parent, at)

    def animation(self) -> dict:
        times = np.array([0.0, CURL_SECONDS / 2, CURL_SECONDS], np.float32)
        t = self.buffer.add(times, FLOAT, "SCALAR")
        samplers, channels = [], []
        for node, rest, closed in self.curls:
            keys = np.array([rest, closed, rest], np.float32)
            samplers.append(
                {
                    "input": t,
                    "output": self.buffer.add(keys, FLOAT, "VEC4"),
                    "interpolation": "LINEAR",
                }
            )
            channels.append(
                {"sampler": len(samplers) - 1, "target": {"node": node, "path": "rotation"}}
            )
        return {"name": "Curl", "samplers": samplers, "channels": channels}


def _times(a: list[float], b: list[float]) -> list[float]:
    """The quaternion product a * b (turn by b, then by a), both (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]


def hand_document(*, animated: bool = True) -> tuple[dict, bytes]:
    """(glTF JSON dict, binary buffer) of the hand; the palm faces +z, fingers point +y."""
    h = _Hand()
    root = h.node("Hand", None)
    wrist = h.node("Wrist", root, (0.0, -0.012, 0.0))
    palm = h.node("Palm", wrist, (0.0, 0.012, 0.0), mesh=h.mesh(*PALM))
    for finger, base, lengths, width in FINGERS:
        h.chain(finger, palm, base, None, PHALANGES, lengths, width, (-1.0, 0.0, 0.0), CURL_DEGREES)
    h.chain(
        "Thumb",
        palm,
        THUMB_BASE,
        axis_quat((0, 0, 1), -38.0),
        ("Metacarpal", "Proximal", "Distal"),
        THUMB_LENGTHS,
        THUMB_WIDTH,
        (-0.6, 0.0, 0.8),
        THUMB_CURL_DEGREES,
    )
    h.node("PalmCenter", palm, (0.0, 0.5 * PALM[1], 0.5 * PALM[2]))
    h.node("Pinch", palm, (0.028, 0.07, 0.02))
    h.node("Grip", palm, (0.0, 0.026, -0.5 * PALM[2]))
    h.node("Knuckles", palm, (0.0, PALM[1], -0.5 * PALM[2]))
    h.node("Forearm", root, (0.0, -0.04, 0.0))
    h.node("Aim", wrist, (0.0, 0.13, 0.0))
    doc = {
        "asset": {"version": "2.0", "generator": "sgview docs/make_hand_glb.py"},
        "scene": 0,
        "scenes": [{"name": "Hand", "nodes": [root]}],
        "nodes": h.nodes,
        "meshes": h.meshes,
        "materials": [
            {
                "name": "Skin",
                "pbrMetallicRoughness": {"baseColorFactor": SKIN, "metallicFactor": 0.0},
            }
        ],
    }
    if animated:
        doc["animations"] = [h.animation()]
    doc["accessors"] = h.buffer.accessors
    doc["bufferViews"] = h.buffer.views
    doc["buffers"] = [{"byteLength": len(h.buffer.data)}]
    return doc, bytes(h.buffer.data)


def write_hand(path: str | Path, *, animated: bool = True) -> Path:
    """Write the hand as a .glb file at `path`; returns the path."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from viewer.io.gltf_write.container import GltfExport, glb_bytes

    path = Path(path)
    doc, blob = hand_document(animated=animated)
    export = GltfExport(doc, bytearray(blob), images=[], dataless=0, notes=[])
    path.write_bytes(glb_bytes(export))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description="Write the code-built hand model as a .glb.")
    parser.add_argument("out", nargs="?", default="hand.glb", help="output file (hand.glb)")
    parser.add_argument("--still", action="store_true", help="leave out the curl animation")
    args = parser.parse_args()
    out = write_hand(args.out, animated=not args.still)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
