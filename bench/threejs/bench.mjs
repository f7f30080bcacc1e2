// three.js side of bench/propagation.py: the same trees as Object3D hierarchies.
//
// Usage: node bench.mjs THREE_DIR SPEC.json
//   THREE_DIR: a folder with node_modules/three (bench/threejs_driver.py installs it there).
//   SPEC.json: {"dir": folder of the tree's raw arrays, "n": nodes, "cases": {name: count},
//               "warmup": runs, "repeats": runs}
// The arrays are little-endian raw files written by the Python driver: parents.i32,
// positions.f64 (n*3), rotations.f64 (n*4, x y z w), scales.f64 (n*3) and, per case,
// ids_<case>.i32. Each timed run sets the positions of the case's nodes (start value plus
// 1e-3 * step, the same rule as bench/treegen.py) and calls scene.updateMatrixWorld(): the
// time includes the sets, as the issue asks. Prints one JSON object on stdout.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [threeDir, specPath] = process.argv.slice(2);
const THREE = await import(
  pathToFileURL(join(threeDir, 'node_modules', 'three', 'build', 'three.module.js')).href
);
const spec = JSON.parse(readFileSync(specPath, 'utf8'));

function raw(name, Type) {
  const buf = readFileSync(join(spec.dir, name));
  return new Type(buf.buffer, buf.byteOffset, buf.byteLength / Type.BYTES_PER_ELEMENT);
}

const parents = raw('parents.i32', Int32Array);
const pos = raw('positions.f64', Float64Array);
const rot = raw('rotations.f64', Float64Array);
const scl = raw('scales.f64', Float64Array);
const n = parents.length;

let t0 = performance.now();
const scene = new THREE.Scene();
const objs = new Array(n);
for (let i = 0; i < n; i++) {
  const o = new THREE.Object3D();
  o.position.set(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
  o.quaternion.set(rot[4 * i], rot[4 * i + 1], rot[4 * i + 2], rot[4 * i + 3]);
  o.scale.set(scl[3 * i], scl[3 * i + 1], scl[3 * i + 2]);
  (parents[i] < 0 ? scene : objs[parents[i]]).add(o);
  objs[i] = o;
}
scene.updateMatrixWorld();
const buildMs = performance.now() - t0;

// World matrix of the last node in the start state, so the driver can check that both sides
// built the same tree with the same conventions (three's elements are column-major).
const check = { id: n - 1, world: Array.from(objs[n - 1].matrixWorld.elements) };

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

let step = 0;
const cases = {};
for (const name of Object.keys(spec.cases)) {
  const ids = raw(`ids_${name === '1%' ? 'pct1' : name}.i32`, Int32Array);
  const times = [];
  for (let r = 0; r < spec.warmup + spec.repeats; r++) {
    step += 1;
    const off = 1e-3 * step;
    t0 = performance.now();
    for (let j = 0; j < ids.length; j++) {
      const i = ids[j];
      objs[i].position.set(pos[3 * i] + off, pos[3 * i + 1] + off, pos[3 * i + 2] + off);
    }
    scene.updateMatrixWorld();
    const dt = performance.now() - t0;
    if (r >= spec.warmup) times.push(dt);
  }
  cases[name] = { median_ms: median(times), times_ms: times };
}

process.stdout.write(JSON.stringify({
  three: THREE.REVISION, node: process.version, n, build_ms: buildMs, check, cases,
}) + '\n');
