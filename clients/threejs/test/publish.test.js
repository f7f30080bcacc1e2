// The three.js publisher against `sgview listen --headless`: the viewer's --log shows
// exactly what three's updateMatrixWorld recomputed each frame, with matrixAutoUpdate on
// and off, and its --dump-world the matrices three holds (a position changed without
// updateMatrix stays where three left it). Loopback only; every wait bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as THREE from "three";
import WebSocket from "ws";
import { publish } from "../sgview-publish.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const PYTHON = process.env.SGVIEW_PYTHON ?? "python3";

/** `sgview listen 127.0.0.1:0 --headless --frames N --log --dump-world DUMP`: resolves with
 * the address it listens on and a promise of its stdout once it exits. */
function startViewer(frames, dump) {
  return spawnViewer(["--frames", String(frames), "--log", "--dump-world", dump,
    "--size", "320x200"]);
}

async function until(check, ms = 30000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

function arm() {
  const scene = new THREE.Scene();
  const names = ["Arm", "Hand", "Finger", "Lamp"];
  const [armNode, hand, finger, lamp] = names.map((name) => {
    const o = new THREE.Group();
    o.name = name;
    return o;
  });
  scene.add(armNode, lamp);
  armNode.add(hand);
  hand.add(finger);
  armNode.position.set(1, 0, 0);
  hand.position.set(0, 2, 0);
  finger.position.set(0, 0.5, 0);
  lamp.position.set(-3, 4, 0);
  scene.updateMatrixWorld();
  return { scene, arm: armNode, hand, finger, lamp };
}

function worldsOf(scene) {
  const out = {};
  scene.traverse((o) => {
    const m = new THREE.Matrix4().copy(o.matrixWorld).transpose(); // rows, as dumped
    const e = m.elements;
    out[o.name || o.type] = [0, 1, 2, 3].map((r) => e.slice(4 * r, 4 * r + 4));
  });
  return out;
}

function assertWorlds(dumpPath, scene) {
  const dumped = JSON.parse(readFileSync(dumpPath, "utf8"));
  const mine = worldsOf(scene);
  assert.deepEqual(Object.keys(dumped).sort(), Object.keys(mine).sort());
  for (const [name, rows] of Object.entries(mine)) {
    rows.flat().forEach((v, i) => {
      assert.ok(Math.abs(dumped[name].flat()[i] - v) < 1e-9, `${name}[${i}]`);
    });
  }
}

const EVERY = ["Scene", "Arm", "Hand", "Finger", "Lamp"];
const all = (frame) => [`# frame ${frame}`,
  ...EVERY.flatMap((n) => [`*Update Local : ${n}*`, `=Update World : ${n}=`])];

test("matrixAutoUpdate on: three recomputes every object every frame", async () => {
  const dump = path.join(mkdtempSync(path.join(tmpdir(), "sgview-three-")), "world.json");
  const viewer = startViewer(3, dump);
  const { scene, hand } = arm();
  const link = publish(scene, `ws://${await viewer.address}`, { WebSocket, name: "auto" });
  await until(() => link.connected);
  for (let k = 1; k <= 3; k++) {
    hand.position.x = 0.5 * k; // one object moves; three recomputes them all
    scene.updateMatrixWorld();
    link.frame();
  }
  const out = await viewer.done;
  link.close();
  assert.equal(out, [1, 2, 3].flatMap(all).join("\n") + "\n");
  assertWorlds(dump, scene);
});

test("matrixAutoUpdate off: only what was asked for, forced children included", async () => {
  const dump = path.join(mkdtempSync(path.join(tmpdir(), "sgview-three-")), "world.json");
  const viewer = startViewer(3, dump);
  const { scene, arm: armNode, hand, finger } = arm();
  for (const o of [scene, armNode, hand, finger]) o.matrixAutoUpdate = false;
  const link = publish(scene, `ws://${await viewer.address}`, { WebSocket, name: "manual" });
  await until(() => link.connected);
  hand.position.x = 5; // no updateMatrix: three does not move it
  scene.updateMatrixWorld();
  link.frame();
  const stale = hand.matrixWorld.elements[12];
  hand.updateMatrix(); // now it does, and forces Finger's world
  scene.updateMatrixWorld();
  link.frame();
  armNode.matrixWorldNeedsUpdate = true; // the world only, forcing the subtree
  scene.updateMatrixWorld();
  link.frame();
  const out = await viewer.done;
  link.close();
  const lamp = ["*Update Local : Lamp*", "=Update World : Lamp="];
  assert.equal(out, [
    "# frame 1", ...lamp,
    "# frame 2", "*Update Local : Hand*", "=Update World : Hand=", "=Update World : Finger=",
    ...lamp,
    "# frame 3", "=Update World : Arm=", "=Update World : Hand=", "=Update World : Finger=",
    ...lamp,
  ].join("\n") + "\n");
  assert.equal(stale, 1); // Arm at x = 1, Hand where three left it
  assert.equal(hand.matrixWorld.elements[12], 6);
  assertWorlds(dump, scene);
});

test("an object added before the update shows in that frame: recomputed and its world", async () => {
  const dump = path.join(mkdtempSync(path.join(tmpdir(), "sgview-three-")), "world.json");
  const viewer = startViewer(3, dump);
  const { scene, hand, lamp } = arm();
  const link = publish(scene, `ws://${await viewer.address}`, { WebSocket, name: "added" });
  await until(() => link.connected);
  scene.updateMatrixWorld();
  link.frame();
  const drone = new THREE.Group(); // a subtree built aside, then added in frame 2
  drone.name = "Drone";
  const rotor = new THREE.Group();
  rotor.name = "Rotor";
  drone.add(rotor);
  drone.position.set(0, 1, 0);
  rotor.position.set(0.25, 0, 0);
  hand.add(drone);
  scene.updateMatrixWorld();
  link.frame();
  const beacon = new THREE.Group(); // attached in frame 3, where it was in the world
  beacon.name = "Beacon";
  beacon.position.set(2, 2, 2);
  beacon.updateMatrixWorld();
  lamp.attach(beacon);
  scene.updateMatrixWorld();
  link.frame();
  const out = await viewer.done;
  link.close();
  const lines = (names) => names.flatMap((n) => [`*Update Local : ${n}*`, `=Update World : ${n}=`]);
  const withDrone = ["Scene", "Arm", "Hand", "Finger", "Drone", "Rotor", "Lamp"];
  assert.equal(out, [
    "# frame 1", ...lines(EVERY),
    "# frame 2", ...lines(withDrone),
    "# frame 3", ...lines([...withDrone, "Beacon"]),
  ].join("\n") + "\n");
  assert.deepEqual(beacon.matrixWorld.elements.slice(12, 15), [2, 2, 2]);
  assertWorlds(dump, scene);
  for (const o of [hand, lamp, drone]) {
    assert.ok(!Object.hasOwn(o, "add") && !Object.hasOwn(o, "attach")); // three's own again
  }
});

test("worlds three left stale are sgview's too, flagged by name", async () => {
  const dump = path.join(mkdtempSync(path.join(tmpdir(), "sgview-three-")), "world.json");
  const viewer = startViewer(4, dump);
  const { scene, arm: armNode, hand, finger, lamp } = arm();
  const link = publish(scene, `ws://${await viewer.address}`, { WebSocket, name: "stale" });
  await until(() => link.connected);
  scene.updateMatrixWorld();
  link.frame();
  lamp.attach(finger); // Finger keeps its world under Lamp
  scene.traverse((o) => { o.matrixAutoUpdate = false; });
  armNode.position.x = 3; // the program updates Arm alone and forgets updateMatrixWorld:
  armNode.updateMatrix(); // Hand's matrixWorld stays where Arm was
  armNode.updateWorldMatrix(false, false);
  link.frame();
  const handStale = Array.from(hand.matrixWorld.elements);
  scene.updateMatrixWorld(); // three recomputes nothing: Arm's flag was cleared
  assert.deepEqual(Array.from(hand.matrixWorld.elements), handStale);
  hand.updateMatrixWorld(true); // the program forces Hand: current again
  link.frame();
  lamp.matrix.setPosition(-3, 5, 0); // set by hand, matrixWorld not recomputed
  link.frame();
  const out = await viewer.done;
  link.close();
  assert.equal(handStale[12], 1); // three's own: Hand where Arm was (x = 1), Arm at 3
  assert.equal(hand.matrixWorld.elements[12], 3);
  assert.equal(lamp.matrixWorld.elements[13], 4);
  const blocks = out.split(/^# frame \d+\n/m).slice(1);
  assert.equal(blocks.length, 4);
  const stale = blocks.map((b) => b.split("\n").filter((l) => /stale/i.test(l)));
  assert.deepEqual(stale, [[], ["!Stale World : Hand!"], [], ["!Stale World : Lamp!"]]);
  assert.equal(blocks[2], "=Update World : Hand=\n");
  assert.equal(blocks[3], "!Stale World : Lamp!\n"); // three recomputed nothing
  const dumped = JSON.parse(readFileSync(dump, "utf8"));
  for (const [name, rows] of Object.entries(worldsOf(scene))) { // bit for bit
    assert.deepEqual(dumped[name], rows, name);
  }
  assert.deepEqual(dumped.Lamp[1], [0, 1, 0, 4]); // where three has it, not at y = 5
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

/** `sgview listen 127.0.0.1:0 --headless ARGS...`: the address it listens on (a promise),
 * its stdout once it exits (a promise), and the lines of the connections it refused so far. */
function spawnViewer(args) {
  const child = spawn(PYTHON, ["-m", "viewer", "listen", "127.0.0.1:0", "--headless",
    "--samples", "0", ...args], {
    cwd: ROOT, env: { ...process.env, PYTHONPATH: ROOT },
  });
  let out = "", err = "";
  child.stdout.on("data", (d) => { out += d; });
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill(); reject(new Error(`timeout: ${err}`)); }, 60000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      code === 0 ? resolve(out) : reject(new Error(`sgview exited ${code}: ${err}`));
    });
  });
  const address = new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      err += d;
      const m = /^sgview: listening on (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    done.catch(reject);
  });
  // the lines of the connections it refused: "... disconnected"
  const refused = () => err.split("\n").filter((line) => line.endsWith("disconnected"));
  return { address, done, refused };
}

/** `sgview listen 127.0.0.1:0 --headless ARGS...`, small, with its stderr as it comes. */
function startLimited(args) {
  return spawnViewer(["--size", "160x100", ...args]);
}

for (const [flag, value, count, fits, said] of [
  ["--max-nodes", "20", 30, 10, /^sgview publish: the scene has 31 nodes, over the 20 of the viewer at ws:\/\/127\.0\.0\.1:\d+: not sent until it fits \(sgview listen --max-nodes 31\)$/],
  // 0.01 MiB: 10485 bytes; a snapshot of 61 nodes takes 64 + 216 x 61 and more
  ["--max-buffer-mb", "0.01", 60, 20, /^sgview publish: a snapshot of 13\d\d\d bytes is over the 10485 bytes a message of the viewer at ws:\/\/127\.0\.0\.1:\d+: not sent until it fits \(sgview listen --max-buffer-mb 1\)$/],
]) {
  test(`a scene over ${flag} is told once, not sent, and sent once it fits`, async () => {
    const viewer = startLimited([flag, value, "--frames", "3", "--log"]);
    const scene = new THREE.Scene();
    const groups = Array.from({ length: count }, (_, k) => {
      const group = new THREE.Group();
      group.name = `G${k}`;
      scene.add(group);
      return group;
    });
    const warned = [], told = [];
    const warn = console.warn;
    console.warn = (...args) => warned.push(args.join(" "));
    let link;
    try {
      link = publish(scene, `ws://${await viewer.address}`,
        { WebSocket, name: "big", onOverLimit: (line) => told.push(line) });
      await until(() => link.connected);
      const end = Date.now() + 3000; // a frame every 50 ms, the viewer's lines counted
      while (Date.now() < end) {
        groups[1].position.x += 0.1;
        scene.updateMatrixWorld();
        link.frame();
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      console.warn = warn;
    }
    assert.equal(warned.length, 1, warned.join("\n"));
    assert.match(warned[0], said);
    assert.deepEqual(told, warned);
    assert.equal(link.overLimit, warned[0]);
    assert.ok(link.connected && link.framesSent === 0);
    assert.deepEqual(viewer.refused(), []);
    for (const group of groups.slice(fits)) scene.remove(group);
    for (let k = 0; k < 3; k++) {
      groups[1].position.x += 0.1;
      scene.updateMatrixWorld();
      link.frame();
    }
    const out = await viewer.done;
    link.close();
    assert.equal(link.overLimit, null);
    const frames = out.split("\n").filter((line) => line.startsWith("# frame "));
    assert.equal(frames.length, 3, out);
    assert.ok(out.includes("=Update World : G1="), out);
    assert.ok(!out.includes(`G${fits}`), out); // the snapshot is the scene that fits
  });
}
