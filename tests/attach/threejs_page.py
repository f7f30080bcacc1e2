"""A three.js page built in code for tests/attach/test_attach_threejs_browser.py: what real
applications do to their scene graph, frame by frame, deterministic (a fixed time step,
no clock, no randomness), drawn with WebGLRenderer and published by
clients/threejs/sgview-publish.js with ``auto: true``.

The scene (every object named, names unique):
- ``Rig``: a SkinnedMesh ``Arm`` bound to a chain of three bones, played by an
  AnimationMixer (a bone's position and quaternions, and the rig's own position);
- ``Outer > Middle > Inner``: nested groups turning every frame, meshes under them;
- ``Crowd``: an InstancedMesh, and ``Batch``: a BatchedMesh, both under ``CrowdHolder``,
  their instances moving every frame (each one object to the scene graph);
- ``Skewed``: a group scaled unevenly and turned, the target of the re-parenting;
- ``Doomed``: removed at `REMOVED`;
- ``Drone`` with ``Rotor``: built aside and added under ``Middle`` at `ADDED`;
- ``Traveler`` with ``Passenger``: moved from ``Outer`` to ``Skewed`` with ``attach()`` at
  `ATTACHED`, both with ``matrixAutoUpdate`` off from then on. ``attach()`` leaves
  Traveler's matrix sheared (its new parent is scaled unevenly), which no position,
  rotation and scale can hold: three draws it with that matrix, so its ``matrixWorld``
  differs from its parent's world times the matrix its decomposition gives (stale, as
  sgview defines it), while Passenger's world is its parent's times its own matrix.

The page waits for the publisher's connection, then renders `FRAMES` frames, one per
animation frame, each recorded after render with the bench's recorder (every object's id,
parent and matrixWorld, independently of the publisher), then closes the link and sets
``window.sgviewDone``.
"""

from __future__ import annotations

import json

from browser_pages import RUN_FRAMES_JS

FRAMES = 30
ADDED = 6
REMOVED = 9
ATTACHED = 12
STALE = ("Traveler",)
MOVED = ("Traveler", "Passenger")

_SCENE_JS = r"""
import * as THREE from "three";
import { publish } from "/sgview/sgview-publish.js";

const { FRAMES, ADDED, REMOVED, ATTACHED, URL } = SETTINGS;
const named = (object, name) => { object.name = name; return object; };
const material = new THREE.MeshStandardMaterial({ color: 0x8899aa });
const box = new THREE.BoxGeometry(0.4, 0.4, 0.4);
const mesh = (name) => named(new THREE.Mesh(box, material), name);

const scene = named(new THREE.Scene(), "Scene");
scene.add(named(new THREE.AmbientLight(0xffffff, 0.5), "Ambient"));
const sun = named(new THREE.DirectionalLight(0xffffff, 1), "Sun");
sun.position.set(3, 5, 2);
scene.add(sun);

// A skinned arm: a cylinder bound to three bones, played by an AnimationMixer.
const rig = named(new THREE.Group(), "Rig");
rig.position.set(-2, 0, 0);
const bones = [0, 1, 2].map((i) => named(new THREE.Bone(), `Bone${i}`));
bones[0].add(bones[1]);
bones[1].add(bones[2]);
bones[0].position.y = -1.5;
bones[1].position.y = 1.5;
bones[2].position.y = 1.5;
const limb = new THREE.CylinderGeometry(0.2, 0.2, 3, 8, 6);
const skinIndex = [], skinWeight = [];
const position = limb.attributes.position;
for (let i = 0; i < position.count; i++) {
  const y = position.getY(i) + 1.5;
  const bone = Math.min(2, Math.floor(y / 1.5));
  const w = (y % 1.5) / 1.5;
  skinIndex.push(bone, Math.min(2, bone + 1), 0, 0);
  skinWeight.push(1 - w, w, 0, 0);
}
limb.setAttribute("skinIndex", new THREE.Uint16BufferAttribute(skinIndex, 4));
limb.setAttribute("skinWeight", new THREE.Float32BufferAttribute(skinWeight, 4));
const arm = named(new THREE.SkinnedMesh(limb, material), "Arm");
arm.add(bones[0]);
arm.bind(new THREE.Skeleton(bones));
rig.add(arm);
scene.add(rig);
const turn = (angle) => new THREE.Quaternion()
  .setFromAxisAngle(new THREE.Vector3(0, 0, 1), angle).toArray();
const clip = new THREE.AnimationClip("wave", 1, [
  new THREE.QuaternionKeyframeTrack("Bone1.quaternion", [0, 0.5, 1],
    [...turn(0), ...turn(0.8), ...turn(0)]),
  new THREE.QuaternionKeyframeTrack("Bone2.quaternion", [0, 0.5, 1],
    [...turn(0), ...turn(-0.6), ...turn(0)]),
  new THREE.VectorKeyframeTrack("Bone0.position", [0, 1], [0, -1.5, 0, 0.3, -1.2, 0]),
  new THREE.VectorKeyframeTrack("Rig.position", [0, 1], [-2, 0, 0, -2, 0.5, 0.25]),
]);
const mixer = new THREE.AnimationMixer(rig);
mixer.clipAction(clip).play();

// Nested groups, meshes under each.
const outer = named(new THREE.Group(), "Outer");
const middle = named(new THREE.Group(), "Middle");
const inner = named(new THREE.Group(), "Inner");
outer.add(middle);
middle.add(inner);
middle.position.set(1, 0.5, 0);
inner.position.set(0, 1, 0.5);
inner.scale.set(0.5, 0.5, 0.5);
for (const [parent, tag] of [[outer, "O"], [middle, "M"], [inner, "I"]]) {
  for (let i = 0; i < 3; i++) {
    const m = mesh(`${tag}${i}`);
    m.position.set(i - 1, 0.2 * i, -0.3 * i);
    parent.add(m);
  }
}
const traveler = mesh("Traveler");
traveler.position.set(0.5, -1, 0.25);
traveler.rotation.set(0.3, 0.7, -0.2);
const passenger = mesh("Passenger");
passenger.position.set(0, 0.6, 0);
traveler.add(passenger);
outer.add(traveler);
const doomed = mesh("Doomed");
doomed.position.set(0, -2, 0);
outer.add(doomed);
scene.add(outer);

// An InstancedMesh under a group; its instances move each frame.
const crowdHolder = named(new THREE.Group(), "CrowdHolder");
crowdHolder.position.set(0, -1, -2);
const crowd = named(new THREE.InstancedMesh(box, material, 40), "Crowd");
crowdHolder.add(crowd);
// A BatchedMesh beside it: ten boxes, one draw call; its instances move too.
const batch = named(new THREE.BatchedMesh(10, 1000, 3000, material), "Batch");
const boxId = batch.addGeometry(box);
for (let i = 0; i < 10; i++) batch.addInstance(boxId);
batch.position.set(0, 0.5, 0);
crowdHolder.add(batch);
scene.add(crowdHolder);
const place = new THREE.Matrix4();

// The re-parenting's target: scaled unevenly and turned.
const skewed = named(new THREE.Group(), "Skewed");
skewed.position.set(2, 1, -1);
skewed.scale.set(1, 2.5, 0.5);
skewed.rotation.set(0.4, -0.5, 0.9);
scene.add(skewed);

// Built aside, added at ADDED.
const drone = named(new THREE.Group(), "Drone");
drone.position.set(0, 2, 0);
const rotor = mesh("Rotor");
rotor.position.set(0.3, 0.1, 0);
drone.add(rotor);

const camera = new THREE.PerspectiveCamera(50, 320 / 200, 0.1, 100);
camera.position.set(0, 2, 9);
camera.lookAt(0, 0, 0);
const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setSize(320, 200);
document.body.appendChild(renderer.domElement);

const link = publish(scene, URL, { name: "browser page", auto: true });
window.sgviewLink = link;

function step(k) {
  const t = k / 30;
  mixer.update(1 / 30);
  outer.rotation.y = 0.05 * k;
  middle.rotation.z = 0.08 * k;
  inner.rotation.x = -0.06 * k;
  drone.rotation.y = 0.2 * k;
  rotor.rotation.z = 0.5 * k;
  skewed.rotation.y = -0.5 + 0.03 * k;
  for (let i = 0; i < crowd.count; i++) {
    place.makeTranslation(0.3 * (i % 8) - 1, 0.05 * Math.sin(t + i), 0.3 * Math.floor(i / 8));
    crowd.setMatrixAt(i, place);
  }
  crowd.instanceMatrix.needsUpdate = true;
  for (let i = 0; i < 10; i++) {
    batch.setMatrixAt(i, place.makeTranslation(0.4 * i, 0.1 * Math.cos(t + i), 0));
  }
  if (k === ADDED) middle.add(drone);
  if (k === REMOVED) outer.remove(doomed);
  if (k === ATTACHED) {
    skewed.attach(traveler);
    traveler.matrixAutoUpdate = false;
    passenger.matrixAutoUpdate = false;
  }
  renderer.render(scene, camera); // updates the worlds; the publisher sends the frame
  window.sgviewRecord(THREE, scene, k);
}

RUN_FRAMES
window.sgviewDone = true;
"""


def page_html(ws_url: str, recorder_js: str, frames: int = FRAMES) -> str:
    """The page, publishing to ``ws_url``; ``recorder_js`` defines ``window.sgviewRecord``
    (bench/threejs_examples.py's RECORDER_JS)."""
    settings = {
        "FRAMES": frames,
        "ADDED": ADDED,
        "REMOVED": REMOVED,
        "ATTACHED": ATTACHED,
        "URL": ws_url,
    }
    script = _SCENE_JS.replace("SETTINGS", json.dumps(settings), 1)
    script = script.replace("RUN_FRAMES", RUN_FRAMES_JS, 1)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>sgview: a three.js page</title>
<script type="importmap">{{"imports": {{"three": "/build/three.module.js"}}}}</script>
</head><body style="margin:0">
<script>window.sgviewErrors = [];
window.addEventListener("error", (e) => window.sgviewErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.sgviewErrors.push(String(e.reason)));
{recorder_js}</script>
<script type="module">{script}</script>
</body></html>
"""
