// What the publisher costs a Babylon frame: two identical 1,000-node scenes (100 animated
// transform nodes, 9 boxes under most: nearly every world matrix recomputed) rendered by
// NullEngine in turn, one published and one not, each `scene.render()` timed (the pairs
// share the machine's load). The publisher sends to a WebSocket server in this process
// that welcomes it and drops what it gets (the time is the publisher's, not a viewer's).
// `node bench.js [frames]`.
//
// `node bench.js thin [frames]`: the same pairs with one mesh of 100,000 thin instances
// (NullEngine told it has instanced arrays, as it draws nothing), in four cases: none
// written, 1,000 moved with thinInstanceSetMatrixAt, the whole buffer written and
// announced with thinInstanceBufferUpdated, and the mesh itself moved (all follow).
// `--no-ws` (either mode): the publisher's socket is a stand-in in this process that drops
// every message, so that the time is the publisher's own, without the `ws` package's
// sending (which masks every byte in JavaScript; a browser's WebSocket does it natively).
import { performance } from "node:perf_hooks";
import {
  Animation, FreeCamera, Logger, Matrix, MeshBuilder, NullEngine, Scene, TransformNode, Vector3,
} from "@babylonjs/core";
import WebSocket, { WebSocketServer } from "ws";
import { publish } from "./sgview-publish.js";

Logger.LogLevels = Logger.NoneLogLevel;
const noWs = process.argv.includes("--no-ws");
const args = process.argv.slice(2).filter((a) => a !== "--no-ws");
const thinMode = args[0] === "thin";
const frames = Number(args[thinMode ? 1 : 0] ?? (thinMode ? 200 : 1000));
const THIN = 100_000;

function scene1000() {
  const scene = new Scene(new NullEngine());
  scene.useConstantAnimationDeltaTime = true;
  const camera = new FreeCamera("Camera", new Vector3(0, 20, -60), scene);
  camera.setTarget(Vector3.Zero());
  const template = MeshBuilder.CreateBox("Box", { size: 0.5 }, scene);
  template.setEnabled(false);
  const spin = new Animation("spin", "rotation.y", 60, Animation.ANIMATIONTYPE_FLOAT,
    Animation.ANIMATIONLOOPMODE_CYCLE);
  spin.setKeys([{ frame: 0, value: 0 }, { frame: 120, value: 2 * Math.PI }]);
  let nodes = 2; // the camera and the disabled template
  for (let g = 0; nodes < 1000; g++) {
    const group = new TransformNode(`Group${g}`, scene);
    group.position.set((g % 10) * 4 - 18, 0, Math.floor(g / 10) * 4 - 18);
    nodes += 1;
    for (let k = 0; k < 9 && nodes < 1000; k++, nodes += 1) {
      const box = template.clone(`Box${g}_${k}`, group);
      box.setEnabled(true);
      box.position.set(Math.cos(k), k * 0.3, Math.sin(k));
    }
    scene.beginDirectAnimation(group, [spin], 0, 120, true);
  }
  return { scene, nodes };
}

function sceneThin() {
  const engine = new NullEngine();
  engine.getCaps().instancedArrays = true;
  const scene = new Scene(engine);
  const camera = new FreeCamera("Camera", new Vector3(0, 20, -60), scene);
  camera.setTarget(Vector3.Zero());
  const crowd = MeshBuilder.CreateBox("Crowd", { size: 0.5 }, scene);
  const data = new Float32Array(16 * THIN);
  for (let k = 0; k < THIN; k++) {
    Matrix.Translation(k % 100, Math.floor(k / 100) % 100, Math.floor(k / 10000))
      .copyToArray(data, 16 * k);
  }
  crowd.thinInstanceSetBuffer("matrix", data, 16, false);
  crowd.doNotSyncBoundingInfo = true; // Babylon's own bounding pass is not what is timed
  return { scene, nodes: 2 + THIN, crowd, data };
}

/** The thin-instance case's change for frame `i` of `one`. */
function thinChange(one, kind, i) {
  const { crowd, data } = one;
  if (kind === "1,000 moved (thinInstanceSetMatrixAt)") {
    const m = Matrix.Translation(0, 0.01 * (i % 50), 0);
    for (let j = 0; j < 1000; j++) {
      const k = (j * 97 + i * 13) % THIN;
      m.setTranslationFromFloats(k % 100, Math.floor(k / 100) % 100 + 0.01 * (i % 50), 0);
      crowd.thinInstanceSetMatrixAt(k, m, j === 999);
    }
  } else if (kind === "all 100,000 written (thinInstanceBufferUpdated)") {
    for (let k = 0; k < THIN; k++) data[16 * k + 13] = Math.floor(k / 100) % 100 + 0.01 * (i % 50);
    crowd.thinInstanceBufferUpdated("matrix");
  } else if (kind === "the mesh moved (all follow)") {
    crowd.position.y = 0.01 * (i % 50);
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
await new Promise((resolve) => server.on("listening", resolve));
server.on("connection", (socket) => {
  socket.once("message", () => {
    const welcome = Buffer.alloc(20);
    welcome.write("SGVW", 0, "latin1");
    welcome.writeUInt16LE(1, 4);
    welcome.writeUInt16LE(2, 6);
    welcome.writeUInt32LE(2_000_000, 8);
    welcome.writeBigUInt64LE(256n << 20n, 12);
    socket.send(welcome);
  });
});
const url = `ws://127.0.0.1:${server.address().port}`;

/** `frames` pairs: `bare` and `published` changed (`change(one, i)`), rendered and, for
 * `published`, its frame sent, each pair timed; medians in us. */
async function pairs(bare, published, link, change, count) {
  const times = { without: [], with: [] };
  const differences = [];
  const frameCalls = [];
  const sentBefore = link.framesSent;
  const mergedBefore = link.framesMerged;
  for (let i = 0; i < count; i++) {
    // The two scenes in turn, the first of the pair alternating: the same load on both.
    const order = i % 2 ? [bare, published] : [published, bare];
    const took = new Map();
    for (const one of order) {
      const start = performance.now();
      change(one, i);
      one.scene.render();
      if (one === published) {
        const before = performance.now();
        link.frame();
        frameCalls.push(1000 * (performance.now() - before));
      }
      took.set(one, 1000 * (performance.now() - start));
    }
    times.without.push(took.get(bare));
    times.with.push(took.get(published));
    differences.push(took.get(published) - took.get(bare));
    // Let the socket drain, untimed: every frame is then sent whole, none merged.
    do await new Promise((r) => setTimeout(r, 0)); while (Drained.last.bufferedAmount > 0);
  }
  return {
    without: median(times.without), with: median(times.with), difference: median(differences),
    frame: median(frameCalls), sent: link.framesSent - sentBefore,
    merged: link.framesMerged - mergedBefore,
  };
}

function report(r) {
  console.log(`  median frame: ${r.without.toFixed(1)} us without the publisher, ${r.with.toFixed(1)} us with it`);
  console.log(`  publisher: +${r.difference.toFixed(1)} us a frame, the median of the paired differences (${(100 * (r.with / r.without - 1)).toFixed(1)} % by the medians); link.frame() alone ${r.frame.toFixed(1)} us; ${r.sent} frames sent, ${r.merged} of them merged`);
}

/** The `ws` WebSocket, the last one made kept: the bench waits for it to drain. */
class Drained extends WebSocket {
  constructor(...rest) {
    super(...rest);
    Drained.last = this;
  }
}

/** `--no-ws`: a socket that welcomes the publisher and drops what it sends. */
class Dropped {
  constructor() {
    this.bufferedAmount = 0;
    Drained.last = this;
    setTimeout(() => this.onopen?.(), 0);
  }
  send(buffer) {
    if (new DataView(buffer).getUint16(6, true) !== 1) return; // only a hello is answered
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

const bare = thinMode ? sceneThin() : scene1000();
const published = thinMode ? sceneThin() : scene1000();
const nodes = published.nodes;
// auto: false, so that its frame (link.frame(), called after the render as the
// onAfterRenderObservable would) is timed apart from the render it observed.
const link = publish(published.scene, url, {
  WebSocket: noWs ? Dropped : Drained, name: "bench", auto: false,
});
while (!link.connected) await new Promise((r) => setTimeout(r, 5));
published.scene.render();
let start = performance.now();
link.frame(); // the snapshot: every node
console.log(`nodes: ${nodes} a scene; the first frame (structure and every row): ${(performance.now() - start).toFixed(1)} ms`);
if (thinMode) {
  for (const kind of ["none written", "1,000 moved (thinInstanceSetMatrixAt)",
    "all 100,000 written (thinInstanceBufferUpdated)", "the mesh moved (all follow)"]) {
    const change = (one, i) => thinChange(one, kind, i);
    for (let i = 0; i < 10; i++) { // warm up
      change(bare, i);
      bare.scene.render();
      change(published, i);
      published.scene.render();
      link.frame();
    }
    console.log(`${kind}, ${frames} frames:`);
    report(await pairs(bare, published, link, change, frames));
  }
  published.crowd.thinInstanceCount = THIN - 1; // a structure change: every name again
  published.scene.render();
  start = performance.now();
  link.frame();
  console.log(`count changed (a new structure of ${nodes - 1} nodes): ${(performance.now() - start).toFixed(1)} ms`);
} else {
  for (let i = 0; i < 120; i++) { bare.scene.render(); published.scene.render(); link.frame(); }
  console.log(`${frames} frames each:`);
  report(await pairs(bare, published, link, () => {}, frames));
}
link.close();
server.close();
