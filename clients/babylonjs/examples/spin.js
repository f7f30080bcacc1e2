// A small Babylon.js scene, run headless in Node (NullEngine) and published to sgview:
// a turntable whose arms spin (a Babylon animation), a lamp post frozen in place, a
// billboard sign facing a circling camera. `node examples/spin.js [ws://HOST:PORT] [FRAMES]`
// (defaults: ws://127.0.0.1:7878, 600 frames at 60 a second).
import {
  Animation, FreeCamera, HemisphericLight, Logger, Mesh, MeshBuilder, NullEngine, Scene,
  TransformNode, Vector3,
} from "@babylonjs/core";
import WebSocket from "ws";
import { publish } from "../sgview-publish.js";

Logger.LogLevels = Logger.NoneLogLevel;
const url = process.argv[2] ?? "ws://127.0.0.1:7878";
const frames = Number(process.argv[3] ?? 600);

const engine = new NullEngine();
const scene = new Scene(engine);
const camera = new FreeCamera("Camera", new Vector3(0, 5, -12), scene);
new HemisphericLight("Sky", new Vector3(0, 1, 0), scene);
const table = new TransformNode("Turntable", scene);
for (let k = 0; k < 4; k++) {
  const arm = MeshBuilder.CreateBox(`Arm${k}`, { width: 3, height: 0.2, depth: 0.4 }, scene);
  arm.parent = table;
  arm.rotation.y = (k * Math.PI) / 2;
  arm.position.set(1.5 * Math.cos((k * Math.PI) / 2), 0.5, -1.5 * Math.sin((k * Math.PI) / 2));
  const cup = MeshBuilder.CreateSphere(`Cup${k}`, { diameter: 0.6 }, scene);
  cup.parent = arm;
  cup.position.x = 1.5;
}
const post = MeshBuilder.CreateCylinder("LampPost", { height: 3, diameter: 0.2 }, scene);
post.position.set(4, 1.5, 0);
post.freezeWorldMatrix(); // Babylon keeps this world matrix until unfrozen
const sign = MeshBuilder.CreatePlane("Sign", { size: 1 }, scene);
sign.parent = post;
sign.position.y = 2;
sign.billboardMode = Mesh.BILLBOARDMODE_ALL; // faces the camera: world != parent x local
const spin = new Animation("spin", "rotation.y", 60, Animation.ANIMATIONTYPE_FLOAT,
  Animation.ANIMATIONLOOPMODE_CYCLE);
spin.setKeys([{ frame: 0, value: 0 }, { frame: 240, value: 2 * Math.PI }]);
scene.beginDirectAnimation(table, [spin], 0, 240, true);

const link = publish(scene, url, { name: "spin.js", WebSocket });
let frame = 0;
const timer = setInterval(() => {
  if (!link.connected) return; // frames start once sgview answered
  camera.position.set(12 * Math.sin(frame / 90), 5, -12 * Math.cos(frame / 90));
  camera.setTarget(Vector3.Zero());
  scene.render(); // one frame: what Babylon recomputed goes to sgview
  frame += 1;
  if (frame >= frames) {
    clearInterval(timer);
    setTimeout(() => { link.close(); engine.dispose(); }, 200); // let the last frame go
  }
}, 1000 / 60);
