"""A Babylon.js page built in code for tests/attach/test_attach_babylonjs_browser.py: a real
``Engine`` on a canvas (WebGL in the browser), deterministic (a fixed step, no clock, no
randomness), published by clients/babylonjs/sgview-publish.js with the browser's own
WebSocket.

The scene (every node named, names unique), left-handed as Babylon's default:
- ``Rig``: a transform node turned by a Babylon ``Animation`` of ``rotation.y`` (which
  marks every node below it dirty each frame), ``Arm > Forearm > Hand`` boxes under it;
- ``Chain > Link0 > Link1 > Link2``: a parented chain of boxes, each turned every frame;
- ``Carrier``, moved every frame, with ``Statue`` under it frozen (``freezeWorldMatrix``)
  at `FROZEN`: Babylon keeps the statue's world while its parent moves (held, frozen);
- ``Sign``: a billboard box, Babylon turns its world toward the camera (held, billboard);
- ``Late``: a box added under ``Chain`` at `ADDED`; ``Doomed``: a box disposed at
  `REMOVED`;
- ``Swarm``: a box with 12 thin instances (``thinInstanceAdd``, drawn by the GPU), one
  moved each frame with ``thinInstanceSetMatrixAt``, the box itself moved every fifth
  frame, 2 added at `THIN_ADDED`, 3 dropped (``thinInstanceCount``) at `THIN_DROPPED`,
  one written in the buffer and announced with ``thinInstanceBufferUpdated`` at
  `THIN_BUFFER`.

Babylon's first render computes every node; then the page publishes, waits for the
connection and renders `FRAMES` frames with ``scene.render()``. After each one it records,
by itself: the publisher's frame number, the nodes whose world matrix Babylon recomputed
in it (``onAfterWorldMatrixUpdateObservable``, a camera's
``onViewMatrixChangedObservable``), every node's world matrix as Babylon caches it, and
which nodes' worlds differ from ``local · parent world`` (split into stale, held frozen
and held billboard). A thin instance is recorded as ``Swarm#thin K``, with ``thin`` [the
mesh's id, K] in place of an id (the publisher numbers them), its world Babylon's
product of its matrix in the buffer and the mesh's world (what the shader draws), and it
counts as recomputed when the page's own calls wrote it, it joined, or Babylon recomputed
the mesh. Then it closes the link and sets ``window.sgviewDone``.
"""

from __future__ import annotations

import json

from browser_pages import RUN_FRAMES_JS

FRAMES = 24
FROZEN = 4
ADDED = 8
REMOVED = 12
THIN_ADDED = 10
THIN_DROPPED = 16
THIN_BUFFER = 20

_SCENE_JS = r"""
import { Engine } from "/babylon/Engines/engine.js";
import { Scene } from "/babylon/scene.js";
import { TransformNode } from "/babylon/Meshes/transformNode.js";
import { Mesh } from "/babylon/Meshes/mesh.js";
import { CreateBox } from "/babylon/Meshes/Builders/boxBuilder.js";
import { FreeCamera } from "/babylon/Cameras/freeCamera.js";
import { HemisphericLight } from "/babylon/Lights/hemisphericLight.js";
import { Animation } from "/babylon/Animations/animation.js";
import "/babylon/Animations/animatable.js";
import "/babylon/Materials/standardMaterial.js";
import "/babylon/Meshes/thinInstanceMesh.js";
import { Matrix, Vector3 } from "/babylon/Maths/math.vector.js";
import { publish } from "/sgview/sgview-publish.js";

const { FRAMES, FROZEN, ADDED, REMOVED, THIN_ADDED, THIN_DROPPED, THIN_BUFFER, URL } = SETTINGS;
const canvas = document.createElement("canvas");
canvas.width = 320;
canvas.height = 200;
document.body.appendChild(canvas);
const engine = new Engine(canvas, false, { preserveDrawingBuffer: false });
const scene = new Scene(engine);
const camera = new FreeCamera("Camera", new Vector3(3, 4, -9), scene);
camera.setTarget(Vector3.Zero());
new HemisphericLight("Light", new Vector3(0.2, 1, -0.3), scene);
const box = (name, parent, x, y, z) => {
  const mesh = CreateBox(name, { size: 0.3 }, scene);
  mesh.parent = parent;
  mesh.position.set(x, y, z);
  return mesh;
};

const rig = new TransformNode("Rig", scene);
rig.position.set(-2, 0, 1);
const arm = box("Arm", rig, 0, 1, 0);
const forearm = box("Forearm", arm, 0.8, 0, 0);
forearm.rotation.z = 0.4;
box("Hand", forearm, 0.7, 0, 0.2);
const spin = new Animation("spin", "rotation.y", 30, Animation.ANIMATIONTYPE_FLOAT,
  Animation.ANIMATIONLOOPMODE_CYCLE);
spin.setKeys([{ frame: 0, value: 0 }, { frame: 30, value: 2 * Math.PI }]);
rig.animations.push(spin);

const chain = new TransformNode("Chain", scene);
chain.position.set(1, 0, 0);
const links = [];
let parent = chain;
for (let i = 0; i < 3; i++) {
  parent = box(`Link${i}`, parent, 0, 0.6, 0.1 * i);
  links.push(parent);
}
const carrier = box("Carrier", null, 0, -1.5, 0);
const statue = box("Statue", carrier, 0.5, 0.5, 0.5);
statue.rotation.set(0.2, 0.5, 0);
const sign = box("Sign", null, 2, 1.5, 2);
sign.scaling.set(1, 2, 0.5);
sign.billboardMode = Mesh.BILLBOARDMODE_ALL;
const doomed = box("Doomed", chain, -1, 0, 0);
const swarm = box("Swarm", null, -1, 2, 1);
const place = (k, t) => Matrix.RotationY(0.2 * k + 0.1 * t)
  .multiply(Matrix.Translation(0.3 * (k % 4), 0.3 * Math.floor(k / 4), 0.05 * t));
swarm.thinInstanceAdd(Array.from({ length: 12 }, (_, k) => place(k, 0)));
let thinCount = 12; // the page's own account of its thin instances: how many at the last
let thinWritten = new Set(); // frame, and those its calls wrote since

// Babylon's own account of what it recomputed, kept apart from the publisher.
let recomputed = new Set();
const observed = new WeakSet();
const observe = (node) => {
  const observable = node.onAfterWorldMatrixUpdateObservable  // a camera: its view matrix
    ?? node.onViewMatrixChangedObservable;
  if (!observable || observed.has(node)) return;
  observed.add(node);
  observable.add(() => recomputed.add(node.name));
};
[...scene.transformNodes, ...scene.meshes, ...scene.cameras].forEach(observe);
scene.onNewTransformNodeAddedObservable.add(observe);
scene.onNewMeshAddedObservable.add(observe);
scene.onNewCameraAddedObservable.add(observe);

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
function record(frame) {
  const ids = [], names = [], worlds = [], stale = [], held = [];
  const visit = (node) => {
    const world = node._worldMatrix ? Array.from(node._worldMatrix.m) : IDENTITY;
    ids.push(node.uniqueId);
    names.push(node.name);
    worlds.push(world);
    if (node._localMatrix && node._childUpdateId >= 0) {
      const local = node._localMatrix;
      const expected = (node.parent ? local.multiply(node.parent._worldMatrix) : local).m;
      const scale = Math.max(1, ...Array.from(expected, Math.abs));
      if (world.some((v, i) => Math.abs(v - expected[i]) > 1e-6 * scale)) {
        if (node.isWorldMatrixFrozen) held.push(`${node.name} (frozen)`);
        else if (node.billboardMode) held.push(`${node.name} (billboard)`);
        else stale.push(node.name);
      }
    }
    thin.push(null);
    if (node === swarm) {
      const data = swarm._thinInstanceDataStorage.matrixData;
      const count = swarm.thinInstanceCount;
      for (let k = 0; k < count; k++) {
        const name = `Swarm#thin ${k}`;
        ids.push(null);
        thin.push([swarm.uniqueId, k]);
        names.push(name);
        worlds.push(Array.from(Matrix.FromArray(data, 16 * k).multiply(swarm._worldMatrix).m));
        if (recomputed.has("Swarm") || k >= thinCount || thinWritten.has(k)) {
          recomputed.add(name);
        }
      }
      thinCount = count;
      thinWritten = new Set();
    }
    node.getChildren().forEach(visit);
  };
  const thin = [];
  scene.rootNodes.forEach(visit);
  const out = {
    frame, ids, names, worlds, stale, held, thin, recomputed: [...recomputed].sort(),
  };
  recomputed = new Set();
  return out;
}

scene.beginAnimation(rig, 0, 30, true);
scene.render(); // Babylon's first frame computes everything, before sgview connects
recomputed = new Set();
const link = publish(scene, URL, { name: "babylon page" });
window.sgviewLink = link;
const records = [];
window.sgviewRecorded = () => records;

function step(k) {
  links.forEach((node, i) => { node.rotation.x = 0.1 * k * (i + 1); });
  carrier.position.x = 0.15 * k;
  carrier.rotation.y = 0.05 * k;
  if (k === FROZEN) statue.freezeWorldMatrix();
  // Babylon announces a new mesh before its observables exist: observed once made.
  if (k === ADDED) observe(box("Late", chain, 0, -0.5, 0.4));
  if (k === REMOVED) doomed.dispose();
  const moved = k % swarm.thinInstanceCount;
  swarm.thinInstanceSetMatrixAt(moved, place(moved, k));
  thinWritten.add(moved);
  if (k % 5 === 0) swarm.position.x = -1 + 0.1 * k; // every instance follows
  if (k === THIN_ADDED) swarm.thinInstanceAdd([place(12, k), place(13, k)]);
  if (k === THIN_DROPPED) swarm.thinInstanceCount -= 3;
  if (k === THIN_BUFFER) { // written in the buffer itself: the whole buffer announced
    place(1, 2 * k).copyToArray(swarm._thinInstanceDataStorage.matrixData, 16);
    swarm.thinInstanceBufferUpdated("matrix");
    for (let i = 0; i < swarm.thinInstanceCount; i++) thinWritten.add(i);
  }
  scene.render(); // computes the worlds; the publisher sends the frame
  const entry = record(link.frameNumber);
  entry.step = k;
  records.push(entry);
}

RUN_FRAMES
engine.dispose();
window.sgviewDone = true;
"""


def page_html(ws_url: str, frames: int = FRAMES) -> str:
    """The page, publishing to ``ws_url``; it imports Babylon's modules from ``/babylon/``
    (clients/babylonjs/node_modules/@babylonjs/core) and the publisher from ``/sgview/``."""
    settings = {
        "FRAMES": frames,
        "FROZEN": FROZEN,
        "ADDED": ADDED,
        "REMOVED": REMOVED,
        "THIN_ADDED": THIN_ADDED,
        "THIN_DROPPED": THIN_DROPPED,
        "THIN_BUFFER": THIN_BUFFER,
        "URL": ws_url,
    }
    script = _SCENE_JS.replace("SETTINGS", json.dumps(settings), 1)
    script = script.replace("RUN_FRAMES", RUN_FRAMES_JS, 1)
    # One file in @babylonjs/core names its own package: the map resolves it to the same copy.
    imports = {"imports": {"@babylonjs/core/": "/babylon/", "@babylonjs/core": "/babylon/index.js"}}
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>sgview: a Babylon.js page</title>
<script type="importmap">{json.dumps(imports)}</script>
</head><body style="margin:0">
<script>window.sgviewErrors = [];
window.addEventListener("error", (e) => window.sgviewErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.sgviewErrors.push(String(e.reason)));
</script>
<script type="module">{script}</script>
</body></html>
"""
