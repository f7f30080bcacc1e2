// The Babylon.js publisher against `sgview listen --headless`, with Babylon's NullEngine.
// The oracles are Babylon's own, taken apart from the publisher: the nodes whose world
// matrix Babylon recomputed in a frame are the ones its observables report
// (`onAfterWorldMatrixUpdateObservable`, which fires at the end of the work of a
// TransformNode's `computeWorldMatrix`, and a camera's `onViewMatrixChangedObservable`),
// and the world matrices are what Babylon caches, converted here by the rule that
// docs/babylonjs.md states (row vectors read column by column; z -> -z for a left-handed
// scene). sgview's --log must list exactly those nodes per frame, its --dump-world hold
// exactly those matrices (1e-6 relative) at every frame checked. Loopback only; every wait
// bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  Animation, Bone, FreeCamera, HemisphericLight, Logger, Matrix, Mesh, MeshBuilder, NullEngine,
  Quaternion, Scene, Skeleton, TransformNode, Vector3,
} from "@babylonjs/core";
import WebSocket from "ws";
import { publish } from "../sgview-publish.js";

Logger.LogLevels = Logger.NoneLogLevel; // Babylon's banner would mix with the test report

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
// A path is taken from where the tests were started (the viewer runs from the root).
const PYTHON = (process.env.SGVIEW_PYTHON ?? "python3").includes("/")
  ? path.resolve(process.env.SGVIEW_PYTHON) : process.env.SGVIEW_PYTHON ?? "python3";

/** `sgview listen ADDRESS --headless --frames N --log --dump-world DUMP`: resolves with the
 * address it listens on and a promise of its stdout once it exits. */
function startViewer(address, frames, dump) {
  return startLimited(address, ["--frames", String(frames), "--log", "--dump-world", dump]);
}

/** A port free now, so that one viewer after another listens on the same address and the
 * publisher, as with any viewer that starts again, reconnects and sends the whole scene. */
function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(check, ms = 30000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

function tmpFile(name) {
  return path.join(mkdtempSync(path.join(tmpdir(), "sgview-babylon-")), name);
}

/** Per `scene.render()`, the names of the nodes whose world matrix Babylon recomputed,
 * from Babylon's observables. Babylon tells of a new mesh only on the next turn of the
 * event loop: the test observes the nodes it makes itself at once (`observe`). */
function recorder(scene) {
  let current = new Set();
  const seen = new WeakSet();
  const observe = (node) => {
    if (seen.has(node)) return;
    seen.add(node);
    if (node.onAfterWorldMatrixUpdateObservable) {
      node.onAfterWorldMatrixUpdateObservable.add(() => current.add(node.name));
    } else if (node.onViewMatrixChangedObservable) {
      node.onViewMatrixChangedObservable.add(() => current.add(node.name));
    }
  };
  [...scene.transformNodes, ...scene.meshes, ...scene.cameras].forEach(observe);
  for (const skeleton of scene.skeletons) { // the method that computes all its bones at once
    const compute = skeleton._computeTransformMatrices;
    skeleton._computeTransformMatrices = function computing(...args) {
      skeleton.bones.forEach((bone) => current.add(bone.name));
      return compute.apply(this, args);
    };
  }
  scene.onNewTransformNodeAddedObservable.add(observe);
  scene.onNewMeshAddedObservable.add(observe);
  scene.onNewCameraAddedObservable.add(observe);
  return {
    observe,
    take() {
      const out = current;
      current = new Set();
      return out;
    },
  };
}

/** Babylon's cached world matrices in sgview's convention, row by row (as --dump-world
 * writes them): Babylon's `m` read column by column is the column-vector matrix; a
 * left-handed scene is mirrored z -> -z on both sides (S M S). A bone's world is its final
 * matrix times its mesh's world (Babylon's row-vector product). */
function worldsOf(scene) {
  const s = scene.useRightHandedSystem ? [1, 1, 1, 1] : [1, 1, -1, 1];
  const out = {};
  const put = (name, m) => {
    out[name] = [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => s[r] * s[c] * m[4 * c + r]));
  };
  const bones = (bone, mesh) => {
    put(bone.name, bone.getFinalMatrix().multiply(mesh._worldMatrix).m);
    bone.children.forEach((child) => bones(child, mesh));
    (bone._children ?? []).forEach(visit); // attached to the bone
  };
  const visit = (node) => {
    put(node.name, node._worldMatrix?.m ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    thinWorlds(node).forEach((m, k) => put(`${node.name}#thin ${k}`, m.m));
    node.getChildren().forEach(visit);
    node.skeleton?.bones.filter((b) => !b.getParent()).forEach((b) => bones(b, node));
  };
  scene.rootNodes.forEach(visit);
  return out;
}

/** The world matrices Babylon draws `mesh`'s thin instances with: the shader's
 * `world * finalWorld`, in Babylon's row vectors instance · mesh world, with Babylon's own
 * Matrix product, each instance's matrix read from the buffer Babylon draws from (the
 * first `thinInstanceCount`). */
function thinWorlds(mesh) {
  const data = mesh._thinInstanceDataStorage?.matrixData;
  if (!data) return [];
  return Array.from({ length: mesh.thinInstanceCount },
    (_, k) => Matrix.FromArray(data, 16 * k).multiply(mesh._worldMatrix));
}

function assertWorlds(dumpPath, scene, where) {
  const dumped = JSON.parse(readFileSync(dumpPath, "utf8"));
  const mine = worldsOf(scene);
  assert.deepEqual(Object.keys(dumped).sort(), Object.keys(mine).sort(), where);
  for (const [name, rows] of Object.entries(mine)) {
    const expected = rows.flat();
    const scale = Math.max(1, ...expected.map(Math.abs));
    dumped[name].flat().forEach((v, i) => {
      assert.ok(Math.abs(v - expected[i]) <= 1e-6 * scale,
        `${where}: ${name}[${Math.floor(i / 4)}][${i % 4}] sgview ${v}, Babylon ${expected[i]}`);
    });
  }
}

/** sgview's --log as {frame: {world: names it says were recomputed, stale: names it
 * calls stale, held: "NAME (REASON)" of those it calls held}}. */
function parseLog(out) {
  const frames = new Map();
  let current = null;
  for (const line of out.split("\n")) {
    const head = /^# frame (\d+)$/.exec(line);
    if (head) {
      current = { world: new Set(), stale: new Set(), held: new Set() };
      frames.set(Number(head[1]), current);
      continue;
    }
    const world = /^=Update World : (.*)=$/.exec(line);
    if (world) current.world.add(world[1]);
    const stale = /^!Stale World : (.*)!$/.exec(line);
    if (stale) current.stale.add(stale[1]);
    const held = /^!Held World : (.*)!$/.exec(line);
    if (held) current.held.add(held[1]);
  }
  return frames;
}

/** Every frame's recomputed set as Babylon's observables saw it, and its stale and held
 * nodes as Babylon's matrices say (each one is touched every frame in these scenes: a
 * billboard recomputes every frame, the stale marker's camera moves every frame). */
function assertLog(out, expected, stale, where) {
  const logged = parseLog(out);
  const sorted = (names) => [...(names ?? [])].sort();
  for (const [frame, names] of expected) {
    assert.deepEqual(sorted(logged.get(frame)?.world), sorted(names), `${where}: frame ${frame}`);
    assert.deepEqual(sorted(logged.get(frame)?.stale), sorted(stale.get(frame).stale),
      `${where}: stale in frame ${frame}`);
    assert.deepEqual(sorted(logged.get(frame)?.held), sorted(stale.get(frame).held),
      `${where}: held in frame ${frame}`);
  }
  for (const frame of logged.keys()) assert.ok(expected.has(frame), `${where}: frame ${frame}`);
}

function box(name, scene, parent, position) {
  const mesh = MeshBuilder.CreateBox(name, { size: 0.3 }, scene);
  mesh.parent = parent;
  mesh.position.copyFrom(position);
  return mesh;
}

/** A scene built in code: a parented chain of meshes, a TransformNode rig that Babylon
 * animations turn and move, a lone TransformNode no mesh hangs under (Babylon never
 * computes it in a render), a marker computed once under the circling camera and left
 * behind (stale: a cache Babylon never refreshes), a billboard, a frozen node, a frozen
 * node under the moving rig (held: its world kept on purpose), a camera that circles. */
function world() {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  scene.useConstantAnimationDeltaTime = true; // 16 ms a frame, whatever the clock says
  const camera = new FreeCamera("Camera", new Vector3(0, 4, -10), scene);
  camera.setTarget(Vector3.Zero());
  new HemisphericLight("Sky", new Vector3(0, 1, 0), scene);
  const arm = box("Arm", scene, null, new Vector3(1, 0, 0));
  const hand = box("Hand", scene, arm, new Vector3(0, 2, 0));
  const finger = box("Finger", scene, hand, new Vector3(0, 0.5, 0.25));
  const rig = new TransformNode("Rig", scene);
  rig.position.set(-2, 1, 3);
  const spinner = new TransformNode("Spinner", scene);
  spinner.parent = rig;
  spinner.position.set(0, 1, 0);
  const blade = box("Blade", scene, spinner, new Vector3(1.5, 0, 0));
  blade.scaling.set(2, 0.5, 1);
  const lone = new TransformNode("Lone", scene);
  const marker = new TransformNode("Marker", scene);
  marker.parent = camera;
  marker.position.set(0, 0, 2);
  marker.computeWorldMatrix(true); // once: no render computes a node no mesh hangs under
  const sign = MeshBuilder.CreatePlane("Sign", { size: 1 }, scene);
  sign.parent = rig;
  sign.position.set(0, 3, 0);
  sign.billboardMode = Mesh.BILLBOARDMODE_ALL;
  const statue = box("Statue", scene, null, new Vector3(4, 0, 4));
  statue.rotation.y = 0.7;
  statue.freezeWorldMatrix();
  const plaque = box("Plaque", scene, rig, new Vector3(0, -1, 0)); // frozen as the rig moves
  plaque.freezeWorldMatrix();
  const turn = new Animation("turn", "rotation.y", 60, Animation.ANIMATIONTYPE_FLOAT,
    Animation.ANIMATIONLOOPMODE_CYCLE);
  turn.setKeys([{ frame: 0, value: 0 }, { frame: 30, value: Math.PI }, { frame: 60, value: 2 * Math.PI }]);
  const bob = new Animation("bob", "position", 60, Animation.ANIMATIONTYPE_VECTOR3,
    Animation.ANIMATIONLOOPMODE_CYCLE);
  bob.setKeys([{ frame: 0, value: new Vector3(-2, 1, 3) }, { frame: 45, value: new Vector3(-2, 2.5, 1) },
    { frame: 90, value: new Vector3(-2, 1, 3) }]);
  const drift = new Animation("drift", "position.x", 60, Animation.ANIMATIONTYPE_FLOAT,
    Animation.ANIMATIONLOOPMODE_CYCLE);
  drift.setKeys([{ frame: 0, value: 0 }, { frame: 60, value: 5 }]);
  const body = box("Body", scene, null, new Vector3(0, 0, -3)); // skinned: a skeleton
  const skeleton = new Skeleton("Rig", "rig", scene);
  const hip = new Bone("Hip", skeleton, null, Matrix.Translation(0, 1, 0));
  const knee = new Bone("Knee", skeleton, hip, Matrix.Translation(0, -0.5, 0));
  const foot = new Bone("Foot", skeleton, knee, Matrix.Translation(0, -0.5, 0.1));
  body.skeleton = skeleton;
  const toe = box("Toe", scene, null, new Vector3(0, 0, 0.2));
  toe.attachToBone(foot, body); // Babylon: Toe's local x Foot's final x Body's world
  scene.beginDirectAnimation(spinner, [turn], 0, 60, true);
  scene.beginDirectAnimation(rig, [bob], 0, 90, true);
  scene.beginDirectAnimation(lone, [drift], 0, 60, true);
  return {
    engine, scene, camera, arm, hand, finger, rig, spinner, blade, lone, sign, statue, body, knee,
  };
}

/** The frame's `t`-th change (one a frame; `w`: the scene's nodes). */
function change(w, t, oracle) {
  const { scene, camera, hand, finger, rig, statue, lone } = w;
  camera.position.set(10 * Math.sin(t / 20), 4, -10 * Math.cos(t / 20));
  if (t % 3 === 0) hand.rotation.z = 0.05 * t; // Hand and its subtree, every third frame
  if (t % 4 === 1) w.knee.rotation = new Vector3(0, 0, 0.02 * t); // the skeleton recomputes
  if (t % 10 === 7) w.body.position.x = 0.1 * t; // the bones follow, not recomputed
  if (t === 10) statue.position.x = 9; // frozen: Babylon does not move it
  if (t === 25) w.arm.markAsDirty(); // recomputed, though nothing moved
  if (t === 50) oracle.observe(box("Thumb", scene, hand, new Vector3(0.2, 0.3, 0)));
  if (t === 60) finger.setParent(rig); // re-parented, world kept
  if (t === 70) scene.getMeshByName("Thumb").dispose(); // removed
  if (t === 80) statue.unfreezeWorldMatrix(); // moves to x = 9 at last
  if (t === 95) statue.freezeWorldMatrix();
  if (t === 100) lone.computeWorldMatrix(); // asked for: computed outside the render
  if (t === 105) { // a new node, and a mesh moved under it
    const pivot = new TransformNode("Pivot", scene);
    pivot.position.y = 1;
    w.blade.setParent(pivot);
  }
}

/** The nodes whose world Babylon holds differs from its local matrix times its parent's
 * world (Babylon's own product, in its own convention): `held`, "NAME (REASON)", those
 * Babylon holds so on purpose (`isWorldMatrixFrozen`: frozen, a `billboardMode`:
 * billboard), what sgview must show held; `stale`, the others, what it must call stale.
 * A node Babylon never computed has no local matrix yet (docs/babylonjs.md). */
function staleOf(scene) {
  const out = { stale: new Set(), held: new Set() };
  const visit = (node) => {
    const parent = node.parent;
    if (node._localMatrix && node._childUpdateId >= 0) {
      const local = node._localMatrix;
      const parentWorld = parent?.getClassName() === "Bone" // its final matrix x its mesh's
        ? parent.getFinalMatrix().multiply(node._transformToBoneReferal._worldMatrix)
        : parent?._worldMatrix;
      const expected = (parent ? local.multiply(parentWorld) : local).m;
      const scale = Math.max(1, ...Array.from(expected, Math.abs));
      if (node._worldMatrix.m.some((v, i) => Math.abs(v - expected[i]) > 1e-6 * scale)) {
        if (node.isWorldMatrixFrozen) out.held.add(`${node.name} (frozen)`);
        else if (node.billboardMode) out.held.add(`${node.name} (billboard)`);
        else out.stale.add(node.name);
      }
    }
    node.getChildren().forEach(visit);
    const bones = (bone) => {
      bone.children.forEach(bones);
      (bone._children ?? []).forEach(visit);
    };
    node.skeleton?.bones.filter((b) => !b.getParent()).forEach(bones);
  };
  scene.rootNodes.forEach(visit);
  return out;
}

test("recomputed sets and world matrices over 120 frames of motion, edits and structure changes",
  async () => {
    const w = world();
    const { scene, camera, hand, statue } = w;
    const oracle = recorder(scene);
    scene.render(); // Babylon's first frame computes everything: before sgview connects
    oracle.take();
    const port = await freePort();
    const link = publish(scene, `ws://127.0.0.1:${port}`, { WebSocket, name: "babylon" });
    const perSession = 40;
    let frame = link.frameNumber;
    const seen = new Set(); // every stale and held node the oracle found, over the run
    try {
      for (let session = 1; session <= 3; session++) {
        const dump = tmpFile("world.json");
        const viewer = startViewer(`127.0.0.1:${port}`, perSession, dump);
        await viewer.address;
        await until(() => link.connected);
        const expected = new Map();
        const stale = new Map();
        for (let k = 0; k < perSession; k++) {
          frame += 1;
          change(w, (session - 1) * perSession + k, oracle);
          scene.render();
          expected.set(frame, oracle.take());
          stale.set(frame, staleOf(scene));
          for (const name of stale.get(frame).stale) seen.add(`stale ${name}`);
          for (const name of stale.get(frame).held) seen.add(`held ${name}`);
        }
        assert.equal(link.frameNumber, frame);
        const out = await viewer.done;
        assertLog(out, expected, stale, `session ${session}`);
        assertWorlds(dump, scene, `session ${session}, frame ${frame}`);
      }
    } finally {
      link.close(); // its retry timer would keep Node running
    }
    // The scene has each case: a genuine stale node, and Babylon's two reasons.
    for (const want of ["stale Marker", "held Plaque (frozen)", "held Sign (billboard)"]) {
      assert.ok(seen.has(want), `${want}: never in the run (${[...seen]})`);
    }
    assert.equal(statue._worldMatrix.m[12], 9);
    assert.ok(!Object.hasOwn(hand, "computeWorldMatrix")); // Babylon's own again
    assert.ok(!Object.hasOwn(camera, "getViewMatrix"));
    w.engine.dispose();
  });

/** A WebSocket that keeps what the publisher sends and welcomes it at once: the messages
 * themselves, read here by the protocol's layout (docs/attach.md). */
class Capture {
  static last = null;
  constructor() {
    this.sent = [];
    this.bufferedAmount = 0;
    Capture.last = this;
    setTimeout(() => this.onopen?.(), 0);
  }
  send(buffer) {
    this.sent.push(buffer);
    if (new DataView(buffer).getUint16(6, true) !== 1) return; // hello: welcome it
    const welcome = new ArrayBuffer(20);
    const view = new DataView(welcome);
    [0x53, 0x47, 0x56, 0x57].forEach((b, i) => view.setUint8(i, b));
    view.setUint16(4, 1, true);
    view.setUint16(6, 2, true);
    view.setUint32(8, 2_000_000, true); // sgview's default limits: the publisher keeps to them
    view.setBigUint64(12, 256n << 20n, true);
    setTimeout(() => this.onmessage?.({ data: welcome }), 0);
  }
  close() {}
}

/** The last frame message sent: {frame, merged, world: ids, cause: ids, worlds: {id: 16
 * numbers}}. */
function lastFrame(socket) {
  const buffer = socket.sent.findLast((b) => new DataView(b).getUint16(6, true) === 4);
  const view = new DataView(buffer);
  const [k, m, v, n] = [0, 1, 2, 3].map((i) => view.getUint32(48 + 4 * i, true));
  const u32 = (at, count) => Array.from({ length: count }, (_, i) => view.getUint32(at + 4 * i, true));
  let at = 64 + 4 * k;
  const world = u32(at, m);
  const cause = u32(at + 4 * m, m);
  at += 8 * m + 4 * v + 80 * v;
  const ids = u32(at, n);
  at += 4 * n;
  const worlds = {};
  ids.forEach((id, j) => {
    worlds[id] = Array.from({ length: 16 }, (_, i) => view.getFloat64(at + 128 * j + 8 * i, true));
  });
  const frame = Number(view.getBigInt64(8, true));
  return { frame, merged: view.getUint32(16, true), world, cause, worlds };
}

test("causes: the node itself, or the ancestor whose change made it recompute", async () => {
  const scene = new Scene(new NullEngine());
  const base = new TransformNode("Base", scene);
  const boom = new TransformNode("Boom", scene);
  boom.parent = base;
  const tip = box("Tip", scene, boom, new Vector3(0, 1, 0));
  const copy = tip.createInstance("TipCopy"); // an instanced mesh is a node as any
  copy.parent = base;
  const camera = new FreeCamera("Eye", new Vector3(0, 0, -5), scene);
  camera.parent = base;
  const sign = box("Sign", scene, base, new Vector3(0, 2, 0));
  sign.billboardMode = Mesh.BILLBOARDMODE_ALL;
  scene.render();
  const link = publish(scene, "ws://capture", { WebSocket: Capture, name: "causes" });
  try {
    await until(() => link.connected);
    const id = (node) => node.uniqueId;
    const expect = (pairs) => {
      const { world, cause } = lastFrame(Capture.last);
      assert.deepEqual(world.map((w, i) => [w, cause[i]]),
        pairs.map(([node, by]) => [id(node), id(by)]));
    };
    base.position.x = 1; // everything under Base follows it
    scene.render();
    expect([[base, base], [boom, base], [tip, base], [copy, base], [camera, base], [sign, sign]]);
    boom.rotation.z = 0.5;
    scene.render();
    expect([[boom, boom], [tip, boom], [sign, sign]]); // the billboard: every frame, itself
    tip.position.y = 2;
    camera.position.z = -6;
    scene.render();
    expect([[tip, tip], [camera, camera], [sign, sign]]);
    assert.deepEqual(scene.rootNodes.map((n) => n.name), ["Base"]);
  } finally {
    link.close();
  }
});

test("conventions: a left-handed scene mirrored z -> -z, a right-handed one as it is", async () => {
  for (const rightHanded of [false, true]) {
    const scene = new Scene(new NullEngine());
    scene.useRightHandedSystem = rightHanded;
    new FreeCamera("Eye", new Vector3(0, 0, -5), scene);
    const node = box("Turned", scene, null, new Vector3(1, 2, 3));
    node.rotation.set(0.3, 0.6, 0.9);
    node.scaling.set(1, 2, 3);
    const link = publish(scene, "ws://capture", { WebSocket: Capture, name: "conventions" });
    try {
      await until(() => link.connected);
      scene.render();
      const sent = lastFrame(Capture.last).worlds[node.uniqueId];
      const m = node.getWorldMatrix().m;
      // Column by column, column-vector convention: the translation at 12, 13, 14.
      assert.deepEqual(sent.slice(12, 15), [1, 2, rightHanded ? 3 : -3]);
      const flipped = [2, 6, 8, 9, 11, 14];
      sent.forEach((v, i) => {
        const sign = !rightHanded && flipped.includes(i) ? -1 : 1;
        assert.equal(v, sign * m[i], `element ${i}`);
      });
    } finally {
      link.close();
    }
  }
});

test("while sgview lags, frames merge: recomputed in any of them, the latest cause", async () => {
  const scene = new Scene(new NullEngine());
  new FreeCamera("Eye", new Vector3(0, 0, -5), scene);
  const base = new TransformNode("Base", scene);
  const left = box("Left", scene, base, new Vector3(-1, 0, 0));
  const right = box("Right", scene, base, new Vector3(1, 0, 0));
  scene.render();
  const link = publish(scene, "ws://capture", { WebSocket: Capture, name: "lag", maxBuffered: 100 });
  try {
    await until(() => link.connected);
    scene.render();
    const socket = Capture.last;
    const before = socket.sent.length;
    socket.bufferedAmount = 1000; // sgview stopped reading
    left.position.y = 1; // frame A: Left itself
    scene.render();
    base.position.y = 1; // frame B: Base, and both boxes through it
    scene.render();
    assert.equal(socket.sent.length, before); // nothing sent while it lags
    socket.bufferedAmount = 0;
    right.position.y = 2; // frame C: Right itself; the three go as one
    scene.render();
    const frame = lastFrame(socket);
    assert.equal(frame.merged, 3);
    assert.equal(frame.frame, link.frameNumber);
    const id = (node) => node.uniqueId;
    assert.deepEqual(frame.world.map((w, i) => [w, frame.cause[i]]),
      [[id(base), id(base)], [id(left), id(base)], [id(right), id(right)]]);
    assert.equal(link.framesMerged, 2);
  } finally {
    link.close();
  }
});

test("without a WebSocket class publish says so at once instead of retrying silently", () => {
  const own = Object.getOwnPropertyDescriptor(globalThis, "WebSocket");
  // Node before 22 has none: take the global away so the test means the same everywhere.
  Object.defineProperty(globalThis, "WebSocket", { value: undefined, configurable: true });
  try {
    assert.throws(() => publish({}, "ws://127.0.0.1:9"), /no WebSocket here/);
  } finally {
    if (own) Object.defineProperty(globalThis, "WebSocket", own);
    else delete globalThis.WebSocket;
  }
});

/** A mesh's thin instance `k` at time `t`: Babylon's own composition of a scale, a
 * rotation and a translation. */
function instance(k, t) {
  return Matrix.Compose(new Vector3(0.5 + 0.01 * k, 0.5, 0.5 + 0.02 * (t % 7)),
    Quaternion.RotationYawPitchRoll(0.1 * k + 0.03 * t, 0.05 * t, 0.2),
    new Vector3(k % 10, Math.floor(k / 10), 0.01 * t));
}

/** Thin instance `k` of the grid at time `t`, written into the buffer itself. */
function writeGrid(data, k, t) {
  instance(k + 100, t).copyToArray(data, 16 * k);
}

/** A scene of thin instances: Swarm (50 made with thinInstanceAdd, under Carrier, moved
 * with thinInstanceSetMatrixAt, grown and shrunk) and Grid (a buffer of 20 given with
 * thinInstanceSetBuffer, written in place and announced with thinInstanceBufferUpdated or
 * thinInstancePartialBufferUpdate, replaced, dropped and given again). */
function thinWorld() {
  const engine = new NullEngine();
  // NullEngine says it has no instanced arrays, and thinInstanceAdd then refuses: it draws
  // nothing, so it may say it has them.
  engine.getCaps().instancedArrays = true;
  const scene = new Scene(engine);
  const camera = new FreeCamera("Camera", new Vector3(0, 5, -20), scene);
  camera.setTarget(Vector3.Zero());
  const carrier = new TransformNode("Carrier", scene);
  carrier.position.set(1, 0, 2);
  carrier.rotation.y = 0.4;
  const dock = new TransformNode("Dock", scene);
  dock.position.set(-3, 1, 0);
  dock.scaling.set(1.5, 1.5, 1.5);
  box("Anchor", scene, dock, new Vector3(0, 0, 0)); // so that a render computes Dock
  const swarm = box("Swarm", scene, carrier, new Vector3(0, 1, 0));
  swarm.thinInstanceAdd(Array.from({ length: 50 }, (_, k) => instance(k, 0)));
  const grid = box("Grid", scene, null, new Vector3(0, -2, 0));
  const data = new Float32Array(16 * 20);
  for (let k = 0; k < 20; k++) writeGrid(data, k, 0);
  grid.thinInstanceSetBuffer("matrix", data, 16, false);
  return { engine, scene, camera, carrier, dock, swarm, grid, data };
}

/** The frame's `t`-th change, each write of a thin-instance matrix recorded in `wrote`
 * (mesh -> { all, written }) as the test makes the call. */
function thinChange(w, t) {
  const { swarm, grid, carrier, dock } = w;
  const wrote = new Map();
  const mark = (mesh, what) => {
    const entry = wrote.get(mesh) ?? { all: false, written: new Set() };
    wrote.set(mesh, entry);
    if (what === "all") entry.all = true;
    else what.forEach((k) => entry.written.add(k));
  };
  const n = swarm.thinInstanceCount; // some moved, the last call refreshing the buffer
  const picks = [...new Set([(7 * t) % n, (11 * t + 3) % n, (13 * t + 5) % n])];
  picks.forEach((k, i) => swarm.thinInstanceSetMatrixAt(k, instance(k, t), i === picks.length - 1));
  mark(swarm, picks);
  if (t % 10 === 4) { // grown by three
    swarm.thinInstanceAdd([instance(n, t), instance(n + 1, t), instance(n + 2, t)]);
    mark(swarm, [n, n + 1, n + 2]);
  }
  if (t % 10 === 8) swarm.thinInstanceCount -= 4; // shrunk: their matrices stay in the buffer
  if (t % 20 === 9) swarm.thinInstanceCount += 2; // two of them drawn again, unwritten
  if (t % 15 === 5) carrier.position.x += 0.5; // Swarm and its instances follow
  if (t % 20 === 13) swarm.rotation.z = 0.05 * t; // Swarm itself
  if (t === 60) swarm.setParent(dock);
  if (grid.thinInstanceCount) {
    if (t % 6 === 2) { // the whole buffer written in place, then announced
      for (let k = 0; k < grid.thinInstanceCount; k++) writeGrid(w.data, k, t);
      grid.thinInstanceBufferUpdated("matrix");
      mark(grid, "all");
    } else if (t % 9 === 1) { // two of it, announced as such
      writeGrid(w.data, 5, t);
      writeGrid(w.data, 6, t);
      grid.thinInstancePartialBufferUpdate("matrix", 2, 5);
      mark(grid, [5, 6]);
    }
  }
  if (t === 70 || t === 100) { // a buffer of its own, replaced
    w.data = new Float32Array(16 * (t === 70 ? 12 : 8));
    for (let k = 0; k < w.data.length / 16; k++) writeGrid(w.data, k, t);
    grid.thinInstanceSetBuffer("matrix", w.data, 16, false);
    mark(grid, "all");
  }
  if (t === 90) grid.thinInstanceSetBuffer("matrix", null); // no thin instances left
  if (t === 115) grid.position.y = -3; // the grid itself
  return wrote;
}

/** The thin instances the publisher must report recomputed after a frame, from the test's
 * own record of its calls (`wrote`) and Babylon's: those whose matrix the frame's calls
 * wrote, those that joined (the count grew), and all of a mesh whose world Babylon
 * recomputed (`recomputed`: names). `counts`: mesh -> its count after the last frame. */
function thinExpected(meshes, wrote, counts, recomputed) {
  const names = new Set();
  for (const mesh of meshes) {
    const count = mesh._thinInstanceDataStorage.matrixData ? mesh.thinInstanceCount : 0;
    const before = counts.get(mesh) ?? 0;
    counts.set(mesh, count);
    const entry = wrote.get(mesh);
    const all = recomputed.has(mesh.name) || entry?.all;
    for (let k = 0; k < count; k++) {
      if (all || k >= before || entry?.written.has(k)) names.add(`${mesh.name}#thin ${k}`);
    }
  }
  return names;
}

test("thin instances: each a node under its mesh, with Babylon's world, over 120 frames",
  async () => {
    const w = thinWorld();
    const { scene, swarm, grid } = w;
    const oracle = recorder(scene);
    scene.render();
    oracle.take();
    const counts = new Map([[swarm, 50], [grid, 20]]);
    const port = await freePort();
    const link = publish(scene, `ws://127.0.0.1:${port}`, { WebSocket, name: "thin" });
    let frame = link.frameNumber;
    let t = 0;
    const sizes = new Set(); // Swarm's counts over the run
    try {
      for (let session = 1; session <= 3; session++) {
        const dump = tmpFile("world.json");
        const viewer = startViewer(`127.0.0.1:${port}`, 40, dump);
        await viewer.address;
        await until(() => link.connected);
        const expected = new Map();
        const stale = new Map();
        for (let k = 0; k < 40; k++, t++) {
          frame += 1;
          const wrote = thinChange(w, t);
          scene.render();
          const names = oracle.take();
          for (const name of thinExpected([swarm, grid], wrote, counts, names)) names.add(name);
          expected.set(frame, names);
          stale.set(frame, staleOf(scene));
          sizes.add(swarm.thinInstanceCount);
        }
        const out = await viewer.done;
        assertLog(out, expected, stale, `session ${session}`);
        assertWorlds(dump, scene, `session ${session}, frame ${frame}`);
      }
    } finally {
      link.close();
    }
    assert.equal(grid.thinInstanceCount, 8);
    assert.ok(Math.min(...sizes) < 50 && Math.max(...sizes) > 50, [...sizes]);
    assert.ok(!Object.hasOwn(swarm, "thinInstanceSetMatrixAt")); // Babylon's own again
  });

/** The column-major matrix T · R · S of sgview's local values (position, quaternion x y
 * z w, scale), as docs/attach.md defines a node's local matrix. */
function compose([px, py, pz, x, y, z, w, sx, sy, sz]) {
  const r = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
  const s = [sx, sy, sz];
  const m = new Array(16).fill(0);
  for (let c = 0; c < 3; c++) for (let row = 0; row < 3; row++) m[4 * c + row] = r[row][c] * s[c];
  [m[12], m[13], m[14], m[15]] = [px, py, pz, 1];
  return m;
}

/** The column-major product a · b. */
function times(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) {
    for (let row = 0; row < 4; row++) {
      for (let k = 0; k < 4; k++) out[4 * c + row] += a[4 * k + row] * b[4 * c + k];
    }
  }
  return out;
}

/** The publisher's messages read back by the protocol's layout (docs/attach.md): the
 * scene sgview would hold, by name ({name: {id, parent, world, values}}), each frame's
 * recomputed names with their causes' names, and the rows each frame carried. */
class Mirror {
  constructor() {
    this.read = 0;
    this.byId = new Map(); // id -> { name, parent, world, values }
  }
  take(socket) {
    const frames = [];
    for (; this.read < socket.sent.length; this.read++) {
      const buffer = socket.sent[this.read];
      const view = new DataView(buffer);
      const kind = view.getUint16(6, true);
      const u32 = (at, count) => Array.from({ length: count },
        (_, i) => view.getUint32(at + 4 * i, true));
      if (kind === 3) {
        const n = view.getUint32(8, true);
        const ids = u32(16, n);
        const parents = Array.from({ length: n },
          (_, i) => view.getInt32(16 + 4 * n + 4 * i, true));
        const lengths = u32(16 + 8 * n, n);
        let at = 16 + 12 * n;
        const before = this.byId;
        this.byId = new Map();
        ids.forEach((id, i) => {
          const name = new TextDecoder().decode(new Uint8Array(buffer, at, lengths[i]));
          at += lengths[i];
          const was = before.get(id);
          this.byId.set(id, {
            name, parent: parents[i], world: was?.world ?? null, values: was?.values ?? null,
          });
        });
      } else if (kind === 4) {
        const [k, m, v, n] = [0, 1, 2, 3].map((i) => view.getUint32(48 + 4 * i, true));
        let at = 64 + 4 * k;
        const world = u32(at, m);
        const cause = u32(at + 4 * m, m);
        at += 8 * m;
        const valueIds = u32(at, v);
        at += 4 * v;
        valueIds.forEach((id, j) => {
          this.byId.get(id).values = Array.from({ length: 10 },
            (_, i) => view.getFloat64(at + 80 * j + 8 * i, true));
        });
        at += 80 * v;
        const ids = u32(at, n);
        at += 4 * n;
        ids.forEach((id, j) => {
          this.byId.get(id).world = Array.from({ length: 16 },
            (_, i) => view.getFloat64(at + 128 * j + 8 * i, true));
        });
        const name = (id) => this.byId.get(id).name;
        frames.push({
          merged: view.getUint32(16, true), rows: n,
          world: new Map(world.map((id, i) => [name(id), name(cause[i])])),
        });
      }
    }
    return frames;
  }
  /** The thin instances sgview would call stale: world not parent world · local. */
  stale() {
    const out = [];
    for (const node of this.byId.values()) {
      if (!node.name.includes("#thin ")) continue;
      const expected = times(this.byId.get(node.parent).world, compose(node.values));
      const scale = Math.max(1, ...expected.map(Math.abs));
      if (node.world.some((v, i) => Math.abs(v - expected[i]) > 1e-6 * scale)) {
        out.push(node.name);
      }
    }
    return out;
  }

  /** Every node's world as sent, by name, row by row (as worldsOf writes them). */
  worlds() {
    const out = {};
    for (const { name, world } of this.byId.values()) {
      out[name] = [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => world[4 * c + r]));
    }
    return out;
  }
}

function assertSame(sent, babylon, where) {
  assert.deepEqual(Object.keys(sent).sort(), Object.keys(babylon).sort(), where);
  for (const [name, rows] of Object.entries(babylon)) {
    const expected = rows.flat();
    const scale = Math.max(1, ...expected.map(Math.abs));
    sent[name].flat().forEach((v, i) => {
      assert.ok(Math.abs(v - expected[i]) <= 1e-6 * scale,
        `${where}: ${name}[${Math.floor(i / 4)}][${i % 4}] sent ${v}, Babylon ${expected[i]}`);
    });
  }
}

test("thin instances: every frame's worlds and causes as sent, frames merged while sgview lags",
  async () => {
    const w = thinWorld();
    const { scene, swarm, grid, carrier } = w;
    const oracle = recorder(scene);
    scene.render();
    oracle.take();
    const counts = new Map([[swarm, 50], [grid, 20]]);
    const link = publish(scene, "ws://capture", { WebSocket: Capture, name: "thin" });
    const mirror = new Mirror();
    let merged = new Set(); // what the frames merged so far reported recomputed
    const seen = new Set();
    try {
      await until(() => link.connected);
      for (let t = 0; t < 120; t++) {
        Capture.last.bufferedAmount = t >= 30 && t < 34 ? 1e9 : 0; // sgview lags: merged
        const wrote = thinChange(w, t);
        scene.render();
        const names = oracle.take();
        const thin = thinExpected([swarm, grid], wrote, counts, names);
        thin.forEach((name) => merged.add(name));
        const frames = mirror.take(Capture.last);
        if (Capture.last.bufferedAmount) {
          assert.equal(frames.length, 0, `t ${t}`);
          continue;
        }
        assert.equal(frames.length, 1, `t ${t}`);
        const [frame] = frames;
        assert.equal(frame.merged, t === 34 ? 5 : 1, `t ${t}`);
        const sentThin = [...frame.world.keys()].filter((name) => name.includes("#thin "));
        assert.deepEqual(sentThin.sort(), [...merged].sort(), `t ${t}`);
        merged = new Set();
        assertSame(mirror.worlds(), worldsOf(scene), `t ${t}`);
        assert.deepEqual(mirror.stale(), [], `t ${t}`); // values and worlds agree
        // Causes: written (or joined) itself; otherwise the mesh's cause, the node whose
        // change moved the mesh.
        for (const name of sentThin) {
          const [mesh, k] = name.split("#thin ");
          const by = frame.world.get(name);
          const owner = mesh === "Swarm" ? swarm : grid;
          const own = wrote.get(owner)?.all || wrote.get(owner)?.written.has(Number(k));
          if (t !== 34 && own) assert.equal(by, name, `t ${t}: ${name}`);
          if (!own && t !== 34 && !thin.has(name)) assert.fail(`t ${t}: ${name}`);
          seen.add(by === name ? "itself" : by);
        }
      }
    } finally {
      link.close();
    }
    // Each cause met: an instance's own write, its mesh moved, its mesh's parent moved.
    for (const want of ["itself", "Swarm", carrier.name, "Grid"]) assert.ok(seen.has(want), want);
  });

test("100,000 thin instances: a frame sends the rows that changed, and the count is bounded",
  async () => {
    const scene = new Scene(new NullEngine());
    new FreeCamera("Eye", new Vector3(0, 0, -5), scene);
    const crowd = box("Crowd", scene, null, new Vector3(0, 0, 0));
    const data = new Float32Array(16 * 100_000);
    for (let k = 0; k < 100_000; k++) {
      Matrix.Translation(k % 100, Math.floor(k / 100), 0).copyToArray(data, 16 * k);
    }
    crowd.thinInstanceSetBuffer("matrix", data, 16, false);
    scene.render();
    for (const [max, shown] of [[undefined, 100_000], [1000, 1000]]) {
      const link = publish(scene, "ws://capture", {
        WebSocket: Capture, name: "crowd", maxThinInstances: max,
      });
      const mirror = new Mirror();
      try {
        await until(() => link.connected);
        scene.render(); // the snapshot: every node
        let [frame] = mirror.take(Capture.last);
        assert.equal(mirror.byId.size, 2 + shown);
        assert.equal(frame.rows, 2 + shown);
        assert.equal(link.thinInstancesLeftOut, 100_000 - shown);
        const z = max ? 3 : 2; // each pass moves them somewhere new
        const moved = [3, 500, 999];
        moved.forEach((k) => crowd.thinInstanceSetMatrixAt(k, Matrix.Translation(k, -1, z)));
        scene.render(); // three rows: the ones written, and nothing else
        [frame] = mirror.take(Capture.last);
        assert.equal(frame.rows, 3);
        assert.deepEqual([...frame.world.keys()], moved.map((k) => `Crowd#thin ${k}`));
        scene.render(); // nothing written: nothing sent
        [frame] = mirror.take(Capture.last);
        assert.equal(frame.rows, 0);
        assert.equal(frame.world.size, 0);
        // Two written in place and the whole buffer announced: every instance recomputed,
        // the rows of the two that differ from what sgview holds sent
        data[16 * 7 + 12] = z + 7;
        data[16 * 900 + 13] = z + 9;
        crowd.thinInstanceBufferUpdated("matrix");
        scene.render();
        [frame] = mirror.take(Capture.last);
        assert.equal(frame.world.size, shown);
        assert.equal(frame.rows, 2);
        const sent = mirror.worlds();
        assert.deepEqual(sent["Crowd#thin 500"][2].map((v) => v + 0), [0, 0, 1, -z]); // z mirrored
        assert.equal(sent["Crowd#thin 999"][0][3], 999);
        assert.equal(sent["Crowd#thin 7"][0][3], z + 7);
        assert.equal(sent["Crowd#thin 900"][1][3], z + 9);
        const babylon = Object.fromEntries(Object.entries(worldsOf(scene))
          .filter(([name]) => !(Number(name.split("#thin ")[1]) >= shown)));
        assertSame(sent, babylon, `maxThinInstances ${max}`);
        // Dropped, then given again as they were: new nodes to sgview, every row sent.
        crowd.thinInstanceSetBuffer("matrix", null);
        scene.render();
        mirror.take(Capture.last);
        assert.equal(mirror.byId.size, 2);
        crowd.thinInstanceSetBuffer("matrix", data, 16, false);
        scene.render();
        [frame] = mirror.take(Capture.last);
        assert.equal(frame.rows, shown);
        assert.deepEqual(mirror.stale(), []);
      } finally {
        link.close();
      }
    }
  });

/** `sgview listen ADDRESS --headless ARGS...`, with its stderr as it comes and a way to
 * stop it. */
function startLimited(address, args) {
  const child = spawn(PYTHON, ["-m", "viewer", "listen", address, "--headless",
    "--size", "160x100", "--samples", "0", ...args], {
    cwd: ROOT, env: { ...process.env, PYTHONPATH: ROOT },
  });
  let out = "", err = "";
  child.stdout.on("data", (d) => { out += d; });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill(); reject(new Error(`timeout: ${err}`)); }, 90000);
    exited.then((code) => {
      clearTimeout(timer);
      code === 0 ? resolve(out) : reject(new Error(`sgview exited ${code}: ${err}`));
    });
  });
  const listening = new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      err += d;
      const m = /^sgview: listening on (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    exited.then((code) => reject(new Error(`sgview exited ${code}: ${err}`)));
  });
  // the lines of the connections it refused: "... disconnected"
  const refused = () => err.split("\n").filter((line) => line.endsWith("disconnected"));
  const stop = () => {
    done.catch(() => {}); // stopped on purpose: its exit status says nothing
    child.kill();
    return exited;
  };
  return { address: listening, done, refused, stop };
}

test("thin instances over --max-nodes: told once, not sent; sent once they fit, and to a "
  + "viewer started again with other limits", async () => {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  new FreeCamera("Camera", new Vector3(0, 0, -10), scene);
  const box = MeshBuilder.CreateBox("Box", { size: 1 }, scene);
  const matrices = new Float32Array(16 * 30);
  for (let k = 0; k < 30; k++) Matrix.Translation(k, 0, 0).copyToArray(matrices, 16 * k);
  box.thinInstanceSetBuffer("matrix", matrices, 16);
  scene.render();
  const port = await freePort();
  const warned = [], told = [];
  const warn = console.warn;
  console.warn = (...args) => warned.push(args.join(" "));
  const link = publish(scene, `ws://127.0.0.1:${port}`,
    { WebSocket, name: "thin", onOverLimit: (line) => told.push(line) });
  const render = async (ms) => { // a frame every 50 ms
    const end = Date.now() + ms;
    while (Date.now() < end) {
      box.position.x += 0.1;
      scene.render();
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    let viewer = startLimited(`127.0.0.1:${port}`, ["--max-nodes", "20", "--frames", "3",
      "--log"]);
    await viewer.address;
    await until(() => link.connected);
    await render(3000); // the viewer's refused lines counted meanwhile
    assert.equal(warned.length, 1, warned.join("\n"));
    assert.match(warned[0], /^sgview publish: the scene has 32 nodes, over the 20 of the viewer at ws:\/\/127\.0\.0\.1:\d+: not sent until it fits \(sgview listen --max-nodes 32\)$/);
    assert.deepEqual(told, warned);
    assert.equal(link.overLimit, warned[0]);
    assert.ok(link.connected && link.framesSent === 0);
    assert.deepEqual(viewer.refused(), []);
    box.thinInstanceCount = 5; // 7 nodes: sent
    for (let k = 0; k < 3; k++) {
      box.position.x += 0.1;
      scene.render();
    }
    const out = await viewer.done;
    assert.equal(link.overLimit, null);
    const frames = out.split("\n").filter((line) => line.startsWith("# frame "));
    assert.equal(frames.length, 3, out);
    assert.ok(out.includes("=Update World : Box#thin 4=") && !out.includes("Box#thin 5"), out);
    await until(() => !link.connected);
    box.thinInstanceCount = 30; // over again, then a viewer that takes 32 nodes
    viewer = startLimited(`127.0.0.1:${port}`, ["--max-nodes", "20"]);
    await viewer.address;
    await until(() => link.connected);
    await render(1500);
    assert.equal(warned.length, 2, warned.join("\n")); // over again: told again, once
    assert.deepEqual(viewer.refused(), []);
    await viewer.stop();
    await until(() => !link.connected);
    viewer = startLimited(`127.0.0.1:${port}`, ["--max-nodes", "40", "--frames", "3", "--log"]);
    await viewer.address;
    await until(() => link.connected);
    const sent = link.framesSent;
    let running = true;
    viewer.done.finally(() => { running = false; });
    while (running) await render(50);
    const again = await viewer.done;
    assert.ok(again.includes("=Update World : Box#thin 29="), again);
    assert.equal(link.overLimit, null);
    assert.ok(link.framesSent >= sent + 3);
    assert.equal(warned.length, 2);
    assert.deepEqual(link.limits, { maxNodes: 40, maxMessageBytes: 256 * 2 ** 20 });
  } finally {
    console.warn = warn;
    link.close();
    engine.dispose();
  }
});
