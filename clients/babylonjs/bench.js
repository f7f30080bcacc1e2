// What the publisher costs a Babylon frame: two identical 1,000-node scenes (100 animated
// transform nodes, 9 boxes under most: nearly every world matrix recomputed) rendered by
// NullEngine in turn, one published and one not, each `scene.render()` timed (the pairs
// share the machine's load). The publisher sends to a WebSocket server in this process
// that welcomes it and drops what it gets (the time is the publisher's, not a viewer's).
// `node bench.js [frames]`.
import { performance } from "node:perf_hooks";
import {
  Animation, FreeCamera, Logger, MeshBuilder, NullEngine, Scene, TransformNode, Vector3,
} from "@babylonjs/core";
import WebSocket, { WebSocketServer } from "ws";
import { publish } from "./sgview-publish.js";

Logger.LogLevels = Logger.NoneLogLevel;
const frames = Number(process.argv[2] ?? 1000);

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

const bare = scene1000();
const published = scene1000();
const nodes = published.nodes;
// auto: false, so that its frame (link.frame(), called after the render as the
// onAfterRenderObservable would) is timed apart from the render it observed.
const link = publish(published.scene, url, { WebSocket, name: "bench", auto: false });
while (!link.connected) await new Promise((r) => setTimeout(r, 5));
for (let i = 0; i < 120; i++) { bare.scene.render(); published.scene.render(); link.frame(); }
const times = { without: [], with: [] };
const differences = [];
const frameCalls = [];
for (let i = 0; i < frames; i++) {
  // The two scenes in turn, the first of the pair alternating: the same load on both.
  const order = i % 2 ? [bare, published] : [published, bare];
  const took = new Map();
  for (const one of order) {
    const start = performance.now();
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
  await new Promise((r) => setImmediate(r)); // let the socket drain, untimed
}
const sent = link.framesSent;
link.close();
server.close();
const without = median(times.without);
const withPublisher = median(times.with);
console.log(`nodes: ${nodes} a scene, ${frames} frames each (${sent} sent, ${link.framesMerged} merged)`);
console.log(`median scene.render(): ${without.toFixed(1)} us without the publisher, ${withPublisher.toFixed(1)} us with it`);
console.log(`publisher: +${median(differences).toFixed(1)} us a frame, the median of the paired differences (${(100 * (withPublisher / without - 1)).toFixed(1)} % by the medians); link.frame() alone ${median(frameCalls).toFixed(1)} us`);
