// A small three.js scene published to sgview: planets on orbits (auto-updated, as three
// does by default) beside a static row of posts whose matrixAutoUpdate is off.
//   sgview listen            # in one terminal
//   node examples/orbits.js  # in another (optional: a ws:// URL and a frame count)
// In sgview every object glows every frame, though only the orbits turn: three composes
// each auto-updated object's local matrix (red), and the scene root, auto-updated too,
// forces the world matrices of the posts below it (orange) although theirs is off.
import * as THREE from "three";
import WebSocket from "ws";
import { publish } from "../sgview-publish.js";

const url = process.argv[2] ?? "ws://127.0.0.1:7878";
const frames = Number(process.argv[3] ?? 600);

const scene = new THREE.Scene();
scene.name = "Solar";
const group = (name, parent, x = 0, y = 0) => {
  const object = new THREE.Group();
  object.name = name;
  object.position.set(x, y, 0);
  parent.add(object);
  return object;
};
const sun = group("Sun", scene);
const earthOrbit = group("EarthOrbit", sun);
const earth = group("Earth", earthOrbit, 4);
const moonOrbit = group("MoonOrbit", earth);
group("Moon", moonOrbit, 1.2);
const marsOrbit = group("MarsOrbit", sun);
group("Mars", marsOrbit, 6.5);
const ground = group("Posts", scene, 0, -3);
for (let i = 0; i < 5; i++) group(`Post${i + 1}`, ground, 2.5 * i - 5);
ground.traverse((o) => {
  o.updateMatrix();
  o.matrixAutoUpdate = false;
});

const link = publish(scene, url, { WebSocket, name: "three.js orbits" });
let frame = 0;
const timer = setInterval(() => {
  if (!link.connected) return;
  frame += 1;
  earthOrbit.rotation.z = 0.02 * frame;
  moonOrbit.rotation.z = 0.09 * frame;
  marsOrbit.rotation.z = 0.011 * frame;
  scene.updateMatrixWorld(); // what renderer.render(scene, camera) does first
  link.frame();
  if (frame >= frames) {
    clearInterval(timer);
    setTimeout(() => link.close(), 500);
  }
}, 16);
