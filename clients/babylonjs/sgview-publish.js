// sgview-publish for Babylon.js: send a Babylon scene's frames to sgview (`sgview listen`),
// over the attach protocol of sgview's docs/attach.md (binary WebSocket messages,
// little-endian).
//
// What is sent is what Babylon really did. A node's world matrix was recomputed in a frame
// when Babylon wrote it: its `Matrix.updateFlag` changed (every write of a Babylon matrix
// takes a new flag) or the node holds another matrix object. That is read after the frame
// from the matrix Babylon caches (`worldMatrixFromCache`), never through `getWorldMatrix()`,
// which would make Babylon compute what it had skipped. Why it recomputed is read just
// before Babylon's own dirty checks run: each node's `computeWorldMatrix` (a camera's
// `getViewMatrix`) is observed through an own property that calls Babylon's method, and
// notes whether the node itself was dirty (its position, rotation, scaling, billboard or
// pivot changed, `markAsDirty`, a forced call) or only out of date with its parent; then
// the cause is the ancestor whose change started it.
//
// A mesh's thin instances (GPU instances inside the mesh) are nodes of their own under it,
// `NAME#thin I`, each with the world Babylon draws it with: its matrix in the mesh's
// thin-instance buffer times the mesh's world. Babylon never computes those products on
// the CPU; one is recomputed when Babylon wrote that matrix (the mesh's
// `thinInstanceSetMatrixAt`, `thinInstanceAdd`, `thinInstanceSetBuffer`,
// `thinInstanceBufferUpdated`, `thinInstancePartialBufferUpdate`, observed on the mesh as
// `computeWorldMatrix` is, so a frame where none was written costs nothing per instance)
// or when the mesh's world was recomputed. Of the instances a call wrote, only those whose
// matrix differs from the one last sent are sent again.
//
// Matrices go to sgview's conventions once: Babylon's row-vector matrices read column by
// column are the column-vector ones, and a left-handed scene (Babylon's default) is seen
// through the mirror z -> -z (M' = S M S, S = diag(1, 1, -1, 1)), so that sgview's
// right-handed, +Y up frame shows it the right way round (docs/babylonjs.md).
//
// The viewer's welcome says its limits (the most nodes a structure may list, thin
// instances included, and the largest message): a scene over them is not sent, since the
// viewer would refuse it and the link would reconnect to be refused again. The program is
// told once (console.warn, and `link.overLimit` holds the line while nothing is sent); the
// link stays connected and sends the whole scene again once it fits, or when a viewer with
// other limits takes it.

const MAGIC = [0x53, 0x47, 0x56, 0x57]; // "SGVW"
// A frame is version 1 unless it carries held reasons (version 2): a viewer that speaks
// only version 1 still reads a scene with no frozen matrix and no billboard.
const VERSION = 1;
const HELD_VERSION = 2;
const FLAG_HELD = 2;
const HELLO = 1;
const WELCOME = 2;
const STRUCTURE = 3;
const FRAME = 4;
const NAME_BYTES_MAX = 1024;
const RETRY_MS = 1000;
// A snapshot's frame message: 64 bytes of header and fixed fields, then per node a value
// row (id and 10 f64) and a world matrix (id and 16 f64): its smallest size.
const FRAME_HEAD_BYTES = 64;
const SNAPSHOT_NODE_BYTES = 4 + 80 + 4 + 128;
const encoder = new TextEncoder();
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
// Elements of a column-major 4x4 matrix in the z row or the z column but not both: the
// ones the mirror z -> -z negates.
const Z_FLIPPED = [2, 6, 8, 9, 11, 14];
// Thin instances' ids: from 2^31 up, above any Babylon uniqueId, which the protocol allows
// for nodes with no children (a parent's id is an i32).
const THIN_ID_BASE = 2 ** 31;
const THIN_ID_END = 2 ** 32;

/** A name as sgview takes it: the text itself (sgview escapes what it cannot print safely
 * when it shows it), cut to at most `max` (1024) bytes of UTF-8 between characters. */
function cleanName(text, max = NAME_BYTES_MAX) {
  const name = String(text);
  if (encoder.encode(name).length <= max) return name;
  let kept = "";
  let bytes = 0;
  for (const ch of name) { // code points: a cut never splits a surrogate pair
    bytes += encoder.encode(ch).length;
    if (bytes > max) break;
    kept += ch;
  }
  return kept;
}

function header(view, kind, version = VERSION) {
  MAGIC.forEach((byte, i) => view.setUint8(i, byte));
  view.setUint16(4, version, true);
  view.setUint16(6, kind, true);
}

/** The one line that tells the program its scene is over a viewer's limit, naming the
 * limit, the program's count and the flag to start sgview with. */
export function limitLine(kind, count, limit, url) {
  if (kind === "nodes") {
    return `sgview publish: the scene has ${count} nodes, over the ${limit} of the viewer at ` +
      `${url}: not sent until it fits (sgview listen --max-nodes ${count})`;
  }
  return `sgview publish: ${kind} of ${count} bytes is over the ${limit} bytes a message of ` +
    `the viewer at ${url}: not sent until it fits ` +
    `(sgview listen --max-buffer-mb ${Math.ceil(count / 2 ** 20)})`;
}

function helloMessage(name, token) {
  const parts = [encoder.encode(cleanName(token)), encoder.encode(cleanName(name))];
  const buffer = new ArrayBuffer(8 + 8 + parts[0].length + parts[1].length);
  const view = new DataView(buffer);
  header(view, HELLO);
  let at = 8;
  for (const bytes of parts) {
    view.setUint32(at, bytes.length, true);
    new Uint8Array(buffer, at + 4, bytes.length).set(bytes);
    at += 4 + bytes.length;
  }
  return buffer;
}

/** The structure of `tree` (docs/attach.md), each mesh's thin instances (`tree.thin`)
 * listed right after the mesh, before its children. A thin instance's name is its block's
 * `base` (encoded once) and its index in ASCII digits, written in place: a structure may
 * list 100,000 of them. */
function treeStructure(tree) {
  if (!tree.thin.length) return structureMessage(tree.ids, tree.parents, tree.names);
  const encoded = tree.names.map((n) => encoder.encode(n));
  const bases = tree.thin.map((block) => encoder.encode(block.base));
  let n = tree.ids.length;
  let nameBytes = encoded.reduce((sum, b) => sum + b.length, 0);
  tree.thin.forEach((block, b) => {
    n += block.count;
    nameBytes += block.count * bases[b].length;
    for (let digits = 1, from = 0; from < block.count; digits++, from = 10 ** (digits - 1)) {
      nameBytes += digits * (Math.min(block.count, 10 ** digits) - from);
    }
  });
  const buffer = new ArrayBuffer(8 + 8 + 12 * n + nameBytes);
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  header(view, STRUCTURE);
  view.setUint32(8, n, true);
  view.setUint32(12, nameBytes, true);
  let row = 0;
  let at = 16 + 12 * n; // the names
  const put = (id, parent, length) => {
    view.setUint32(16 + 4 * row, id, true);
    view.setInt32(16 + 4 * n + 4 * row, parent, true);
    view.setUint32(16 + 8 * n + 4 * row, length, true);
    row += 1;
  };
  let next = 0;
  for (let i = 0; i < tree.ids.length; i++) {
    put(tree.ids[i], tree.parents[i], encoded[i].length);
    bytes.set(encoded[i], at);
    at += encoded[i].length;
    const block = tree.thin[next];
    if (block?.at !== i) continue;
    const base = bases[next];
    next += 1;
    for (let k = 0; k < block.count; k++) {
      let digits = 1;
      while (k >= 10 ** digits) digits += 1;
      put(block.ids[k], tree.ids[i], base.length + digits);
      bytes.set(base, at);
      at += base.length + digits;
      for (let d = 1, v = k; d <= digits; d++, v = Math.floor(v / 10)) {
        bytes[at - d] = 0x30 + (v % 10);
      }
    }
  }
  return buffer;
}

function structureMessage(ids, parents, names) {
  const encoded = names.map((n) => encoder.encode(n));
  const nameBytes = encoded.reduce((sum, b) => sum + b.length, 0);
  const n = ids.length;
  const buffer = new ArrayBuffer(8 + 8 + 12 * n + nameBytes);
  const view = new DataView(buffer);
  header(view, STRUCTURE);
  view.setUint32(8, n, true);
  view.setUint32(12, nameBytes, true);
  let at = 16;
  for (const id of ids) { view.setUint32(at, id, true); at += 4; }
  for (const p of parents) { view.setInt32(at, p, true); at += 4; }
  for (const b of encoded) { view.setUint32(at, b.length, true); at += 4; }
  for (const b of encoded) { new Uint8Array(buffer, at, b.length).set(b); at += b.length; }
  return buffer;
}

/** The held section of a frame (docs/attach.md, "Held worlds"): `held`, [id, reason] pairs
 * (reason "": cleared), each distinct reason once in a table. */
function heldSection(held) {
  const table = [...new Set(held.map(([, reason]) => reason))];
  const encoded = table.map((r) => encoder.encode(r));
  const blob = encoded.reduce((sum, b) => sum + b.length, 0);
  const bytes = new Uint8Array(12 + 8 * held.length + 4 * table.length + blob);
  const view = new DataView(bytes.buffer);
  [held.length, table.length, blob].forEach((v, i) => view.setUint32(4 * i, v, true));
  let at = 12;
  for (const [id] of held) { view.setUint32(at, id, true); at += 4; }
  for (const [, r] of held) { view.setUint32(at, table.indexOf(r), true); at += 4; }
  for (const b of encoded) { view.setUint32(at, b.length, true); at += 4; }
  for (const b of encoded) { bytes.set(b, at); at += b.length; }
  return bytes;
}

function frameMessage(f) {
  const counts = [f.local.length, f.world.length, f.valueIds.length, f.worldIds.length];
  const [nl, nw, nv, nm] = counts;
  const held = f.held.length ? heldSection(f.held) : null;
  const size = 64 + 4 * (nl + 2 * nw + nv + nm) + 80 * nv + 128 * nm // header + 56
    + (held ? held.length : 0);
  const buffer = new ArrayBuffer(size);
  const view = new DataView(buffer);
  header(view, FRAME, held ? HELD_VERSION : VERSION);
  view.setBigInt64(8, BigInt(f.frame), true);
  view.setUint32(16, f.merged, true);
  view.setUint32(20, (f.structureChanged ? 1 : 0) | (held ? FLAG_HELD : 0), true);
  view.setBigUint64(24, 0n, true); // suppressed: Babylon has no such notion
  view.setBigUint64(32, BigInt(f.products), true);
  view.setBigUint64(40, BigInt(f.naive), true);
  counts.forEach((c, i) => view.setUint32(48 + 4 * i, c, true));
  let at = 64;
  const u32 = (list) => { for (const v of list) { view.setUint32(at, v, true); at += 4; } };
  const f64 = (numbers) => { // a Float64Array: copied whole where the machine is little-endian
    if (LITTLE_ENDIAN) {
      new Uint8Array(buffer, at, 8 * numbers.length)
        .set(new Uint8Array(numbers.buffer, numbers.byteOffset, 8 * numbers.length));
      at += 8 * numbers.length;
    } else {
      for (const v of numbers) { view.setFloat64(at, v, true); at += 8; }
    }
  };
  u32(f.local); u32(f.world); u32(f.cause); u32(f.valueIds);
  f64(f.values); // 10 per node
  u32(f.worldIds);
  f64(f.worlds); // 16 per node, column by column
  if (held) new Uint8Array(buffer, at, held.length).set(held);
  return buffer;
}

/** Babylon's matrix elements `m` (row vectors, row by row: the same numbers as the
 * column-vector matrix column by column) in sgview's convention, written as 16 f64s
 * column by column into `out` from `at`; `flip`: the scene is left-handed. Numbers sgview
 * would refuse (not finite, or beyond 1e12) cannot come from a matrix Babylon draws
 * with; they go as 0. */
export function toSgview(m, flip, out = new Float64Array(16), at = 0) {
  for (let i = 0; i < 16; i++) {
    const v = m[i];
    out[at + i] = Math.abs(v) <= 1e12 ? v : 0;
  }
  if (flip) for (const i of Z_FLIPPED) out[at + i] = -out[at + i];
  return out;
}

/** The local values sgview keeps (position, quaternion x y z w, scale) of the column-major
 * affine matrix `e`: its translation, the lengths of its axes (x negated for a mirror)
 * and the rotation they leave (shear, which T R S cannot hold, is dropped: the world
 * matrix sent alongside is the truth). */
export function valuesOf(e, out = new Float64Array(10), at = 0) {
  // (sqrt, not Math.hypot: this runs per row, up to 100,000 rows a frame, and the
  // elements are at most 1e12, whose squares cannot overflow)
  const sx0 = Math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  const sy = Math.sqrt(e[4] * e[4] + e[5] * e[5] + e[6] * e[6]);
  const sz = Math.sqrt(e[8] * e[8] + e[9] * e[9] + e[10] * e[10]);
  const det = e[0] * (e[5] * e[10] - e[6] * e[9]) - e[4] * (e[1] * e[10] - e[2] * e[9])
    + e[8] * (e[1] * e[6] - e[2] * e[5]);
  const sx = det < 0 ? -sx0 : sx0;
  // each axis divided by its length (a zero axis: the identity's)
  const m00 = sx === 0 ? 1 : e[0] / sx, m10 = sx === 0 ? 0 : e[1] / sx;
  const m20 = sx === 0 ? 0 : e[2] / sx, m01 = sy === 0 ? 0 : e[4] / sy;
  const m11 = sy === 0 ? 1 : e[5] / sy, m21 = sy === 0 ? 0 : e[6] / sy;
  const m02 = sz === 0 ? 0 : e[8] / sz, m12 = sz === 0 ? 0 : e[9] / sz;
  const m22 = sz === 0 ? 1 : e[10] / sz;
  let x, y, z, w;
  const trace = m00 + m11 + m22;
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    w = 0.25 / s; x = (m21 - m12) * s; y = (m02 - m20) * s; z = (m10 - m01) * s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s; x = 0.25 * s; y = (m01 + m10) / s; z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s; x = (m01 + m10) / s; y = 0.25 * s; z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s; x = (m02 + m20) / s; y = (m12 + m21) / s; z = 0.25 * s;
  }
  if (!(x * x + y * y + z * z + w * w >= 1e-12)) { // a zero scale
    x = 0; y = 0; z = 0; w = 1;
  }
  const finite = (v) => (Number.isFinite(v) ? v : 0);
  out[at] = finite(e[12]); out[at + 1] = finite(e[13]); out[at + 2] = finite(e[14]);
  out[at + 3] = finite(x); out[at + 4] = finite(y); out[at + 5] = finite(z);
  out[at + 6] = finite(w); out[at + 7] = finite(sx); out[at + 8] = finite(sy);
  out[at + 9] = finite(sz);
  return out;
}

const thinScratch = new Float64Array(16);
/** Thin instance `k` of a mesh whose matrix buffer is `data` (Float32Array, 16 a matrix,
 * Babylon's row-vector layout) and whose world is `w` (Babylon's `m`): its world as
 * Babylon draws it (the shader's `world * finalWorld`: in Babylon's row vectors,
 * instance · mesh world), in sgview's convention, into `worlds` at row `j`. */
export function thinWorld(data, k, w, flip, worlds, j) {
  const t = 16 * k;
  for (let r = 0; r < 4; r++) {
    const t0 = data[t + 4 * r], t1 = data[t + 4 * r + 1];
    const t2 = data[t + 4 * r + 2], t3 = data[t + 4 * r + 3];
    for (let c = 0; c < 4; c++) {
      thinScratch[4 * r + c] = t0 * w[c] + t1 * w[4 + c] + t2 * w[8 + c] + t3 * w[12 + c];
    }
  }
  toSgview(thinScratch, flip, worlds, 16 * j);
}

/** The local values of thin instance `k` (its matrix) into `values` at row `j`. */
export function thinValues(data, k, flip, values, j) {
  for (let i = 0; i < 16; i++) thinScratch[i] = data[16 * k + i];
  valuesOf(toSgview(thinScratch, flip, thinScratch), values, 10 * j);
}

const isBone = (node) => node.getClassName?.() === "Bone";
/** Why Babylon holds `node`'s world apart from its parent's world · its local matrix, on
 * purpose: a frozen world matrix (`freezeWorldMatrix`: kept whatever moves), or a
 * billboard (its rotation replaced to face the camera); "" for neither. */
const heldReason = (node) => (node.isWorldMatrixFrozen ? "frozen"
  : node.billboardMode ? "billboard" : "");
/** Whether Babylon ever computed `node`'s world matrix: a transform node's, camera's or
 * bone's `_childUpdateId` (-1 when made) counts the computations its children sync with; a
 * light makes its world matrix when it first computes it. */
const everComputed = (node) => node._childUpdateId >= 0 || (!node._localMatrix
  && !isCamera(node) && node._worldMatrix !== undefined);
const isCamera = (node) => typeof node.getViewMatrix === "function";

/**
 * Publish `scene` to the sgview listening at `url`. Each `scene.render()` is one frame
 * (`scene.onAfterRenderObservable`); with `options.auto === false`, call `link.frame()`
 * once per frame instead. Returns at once; sending never blocks the page: while sgview
 * lags (the socket's bufferedAmount over `maxBuffered`), frames are merged and sent as one.
 * While the scene (thin instances included) is over the viewer's limits (`link.limits`,
 * from its welcome) nothing is sent: `link.overLimit` holds the line that says so, told
 * once by console.warn and `options.onOverLimit(line)`.
 */
export function publish(scene, url = "ws://127.0.0.1:7878", options = {}) {
  const WebSocketClass = options.WebSocket ?? globalThis.WebSocket;
  if (typeof WebSocketClass !== "function") {
    // Node before 22 has no global WebSocket: without this the link would retry forever
    // with nothing said but link.error.
    throw new TypeError(
      "sgview publish: no WebSocket here; pass one, e.g. publish(scene, url, { WebSocket }) " +
        "with `import { WebSocket } from \"ws\"`",
    );
  }
  const name = options.name ?? "Babylon.js";
  const token = options.token ?? "";
  const maxBuffered = options.maxBuffered ?? 8 * 1024 * 1024;
  const auto = options.auto ?? true;
  const maxThin = options.maxThinInstances ?? 100_000;
  const link = {
    connected: false, framesSent: 0, framesMerged: 0, frameNumber: 0, error: null,
    thinInstancesLeftOut: 0, limits: null, overLimit: null,
  };
  const onOverLimit = options.onOverLimit ?? null;
  let told = null; // the limit the program was told of, while over it
  let tooBig = null; // the node count when a message was over the bytes limit
  // node -> { method, hadOwn, original, fresh, world, flag, local, localFlag }: the method
  // observed and Babylon's own, whether the node joined since the last frame, and its
  // world and local matrices (object and updateFlag) as they were at the last frame.
  const watched = new Map();
  let socket = null;
  let closed = false;
  let needSnapshot = false;
  let sent = { ids: [], parents: [], names: [], thin: [] };
  const known = new Set(); // ids whose rows sgview holds
  const heldSent = new Map(); // id -> the held reason sgview holds for it (none: "")
  const nameOf = new WeakMap(); // node -> [its name, as sent]
  const lastCause = new Map(); // id -> the cause of its latest recompute, across frames
  let causes = new Map(); // id -> cause, for the recomputes observed since the last frame
  let pending = null; // frames merged while sgview lags
  let previous = new Set(); // the nodes of the last frame's tree
  // mesh -> what the publisher knows of its thin instances: { written (a Set of indices
  // or null), all, from (indices from it on written): the writes observed since the last
  // frame; last: how many it had at the last frame; known: how many sgview holds rows
  // of; hooks: the methods observed }
  const thinStates = new Map();
  const thinIds = new WeakMap(); // mesh -> Uint32Array, its thin instances' ids by index
  let nextThinId = THIN_ID_BASE;

  /** Whether `node`, about to be computed, would recompute for a reason of its own (judged
   * before Babylon's dirty checks run and clear the flags): no parent, a forced call,
   * `markAsDirty`, or its own state changed (for a transform node or a light,
   * `_isSynchronized()`, which looks at the node alone). A camera's checks also look at
   * its parent, and its `_isDirty` is never cleared (only a transform node's computation
   * clears it): a camera out of date with its parent is taken as moved by it. */
  function ownReason(node, force) {
    if (!node.parent || force) return true;
    if (isCamera(node)) return node.isSynchronizedWithParent();
    if (node._isDirty) return true;
    return typeof node._isSynchronized !== "function" || !node._isSynchronized();
  }

  function observed(node, method) {
    const original = node[method];
    node[method] = function recomputing(force, ...rest) {
      const before = this._worldMatrix;
      const flag = before?.updateFlag;
      const own = ownReason(this, force);
      const result = original.call(this, force, ...rest);
      if (this._worldMatrix !== before || this._worldMatrix?.updateFlag !== flag) {
        // The parent computes inside this call when it is out of date: its cause is known
        // only now.
        const parent = this.parent?.uniqueId;
        causes.set(this.uniqueId, own ? this.uniqueId
          : causes.get(parent) ?? lastCause.get(parent) ?? parent);
      }
      return result;
    };
    return original;
  }

  /** `fresh`: the node joined the tree since the last frame, so whatever Babylon computed
   * of it, it did since then; it may have done so before the publisher could watch it
   * (Babylon tells of a new mesh only on the next turn of the event loop). */
  function watch(node, fresh) {
    if (watched.has(node)) return;
    const bone = isBone(node); // computed by its skeleton, not by a method of its own
    if (bone) watchSkeleton(node.getSkeleton());
    const method = bone ? null : isCamera(node) ? "getViewMatrix" : "computeWorldMatrix";
    const hadOwn = method !== null && Object.hasOwn(node, method);
    watched.set(node, {
      method, hadOwn, original: method && observed(node, method), fresh,
      world: node._worldMatrix, flag: node._worldMatrix?.updateFlag,
      local: node._localMatrix, localFlag: node._localMatrix?.updateFlag,
    });
    if (typeof node.thinInstanceSetMatrixAt === "function") watchThin(node, fresh);
  }

  /** Observe the calls through which Babylon writes `mesh`'s thin-instance matrices: each
   * marks what it wrote (a call made inside another, as `thinInstanceAdd` calls
   * `thinInstanceSetMatrixAt`, which calls `thinInstanceBufferUpdated`, counts as the
   * outer one). `fresh`: the mesh joined the tree since the last frame, and so did its
   * thin instances. */
  function watchThin(mesh, fresh) {
    const last = fresh ? 0 : thinCountOf(mesh)[1];
    const state = {
      written: null, all: false, from: Infinity, last, known: 0, hooks: [],
      sent: new Float32Array(0), // the matrices sgview holds, as last sent
    };
    thinStates.set(mesh, state);
    let depth = 0;
    const count = () => mesh._thinInstanceDataStorage?.instancesCount ?? 0;
    const range = (a, b) => {
      if (b >= count()) state.from = Math.min(state.from, a);
      else for (let i = a; i < b; i++) (state.written ??= new Set()).add(i);
    };
    const marks = {
      thinInstanceSetMatrixAt: ([index], done) => {
        if (done) (state.written ??= new Set()).add(index);
      },
      thinInstanceAdd: (args, done, before) => { if (done >= 0) range(before, count()); },
      thinInstanceSetBuffer: ([kind]) => { if (kind === "matrix") state.all = true; },
      thinInstanceBufferUpdated: ([kind]) => { if (kind === "matrix") state.all = true; },
      // With an array of its own, Babylon sends it to the GPU alone: the matrices it holds
      // (what is shown) are not written.
      thinInstancePartialBufferUpdate: ([kind, length, offset]) => {
        if (kind === "matrix" && typeof length === "number") range(offset, offset + length);
      },
    };
    for (const [method, mark] of Object.entries(marks)) {
      const original = mesh[method];
      if (typeof original !== "function") continue;
      state.hooks.push([method, Object.hasOwn(mesh, method), original]);
      mesh[method] = function thinWrite(...args) {
        const before = count();
        depth += 1;
        let result;
        try {
          result = original.apply(this, args);
        } finally {
          depth -= 1;
        }
        if (depth === 0) mark(args, result, before);
        return result;
      };
    }
  }

  /** The ids of `mesh`'s first `count` thin instances: the same index keeps its id while
   * the mesh lives. */
  function thinIdsOf(mesh, count) {
    let ids = thinIds.get(mesh);
    if (ids && ids.length >= count) return ids;
    const grown = new Uint32Array(Math.max(count, 2 * (ids?.length ?? 0), 16));
    if (ids) grown.set(ids);
    for (let k = ids?.length ?? 0; k < grown.length; k++) {
      grown[k] = nextThinId;
      nextThinId = nextThinId + 1 < THIN_ID_END ? nextThinId + 1 : THIN_ID_BASE;
    }
    thinIds.set(mesh, grown);
    return grown;
  }

  /** How many of `mesh`'s thin instances Babylon draws (the first `thinInstanceCount` of its
   * matrix buffer), and how many of them are published (at most `maxThinInstances`). */
  function thinCountOf(mesh) {
    const storage = mesh._thinInstanceDataStorage;
    const data = storage?.matrixData;
    if (!data || typeof mesh.thinInstanceSetMatrixAt !== "function") return [0, 0];
    const drawn = Math.min(storage.instancesCount, Math.floor(data.length / 16));
    return [drawn, Math.min(drawn, maxThin)];
  }

  // A skeleton computes all its bones' final matrices at once (`prepare()`, when one of
  // them changed), and a root bone's final matrix is a copy of its local one, flag
  // included: the skeleton's own observable says when it did.
  const skeletons = new Map(); // skeleton -> its observer
  const computedSkeletons = new Set(); // those that computed since the last frame
  function watchSkeleton(skeleton) {
    if (skeletons.has(skeleton)) return;
    skeletons.set(skeleton, skeleton.onBeforeComputeObservable.add(() => {
      computedSkeletons.add(skeleton);
    }));
  }

  function unwatch(node) {
    const record = watched.get(node);
    if (record.method !== null) { // a bone had nothing observed
      if (record.hadOwn) node[record.method] = record.original;
      else delete node[record.method];
    }
    const state = thinStates.get(node);
    for (const [method, hadOwn, original] of state?.hooks ?? []) {
      if (hadOwn) node[method] = original;
      else delete node[method];
    }
    thinStates.delete(node);
    watched.delete(node);
  }

  function walk() {
    const nodes = [], ids = [], parents = [], names = [], depths = [];
    const hosts = new Map(); // bone -> the mesh it is shown under
    const placed = new Set(); // skeletons shown, each once, under its first mesh
    const thin = []; // { mesh, at: its place in nodes, count, ids, base }, in pre-order
    let naive = 0;
    let leftOut = 0;
    const visit = (node, parentId, depth, host) => { // pre-order, children in their order
      if (host) hosts.set(node, host);
      nodes.push(node);
      ids.push(node.uniqueId);
      parents.push(parentId);
      depths.push(depth);
      const raw = node.name || node.getClassName();
      let named = nameOf.get(node);
      if (named?.[0] !== raw) nameOf.set(node, named = [raw, cleanName(raw)]);
      names.push(named[1]);
      naive += depth;
      const [drawn, count] = thinCountOf(node);
      if (count) {
        // named NAME#thin K: the mesh's name cut so that the index always fits
        const base = `${cleanName(raw, NAME_BYTES_MAX - 16)}#thin `;
        thin.push({ mesh: node, at: nodes.length - 1, count, ids: thinIdsOf(node, count), base });
        naive += count * (depth + 1);
      }
      leftOut += drawn - count;
      if (isBone(node)) { // its child bones, then the nodes attached to it
        for (const child of node.children) visit(child, node.uniqueId, depth + 1, host);
      }
      // Babylon's own list of children, in their order (getChildren() copies it; a
      // bone's returns its child bones)
      const children = node._children ?? (isBone(node) ? [] : node.getChildren(undefined, true));
      for (const child of children) visit(child, node.uniqueId, depth + 1, null);
      const skeleton = isBone(node) ? null : node.skeleton;
      if (skeleton && !placed.has(skeleton)) {
        placed.add(skeleton);
        for (const bone of skeleton.bones) {
          if (!bone.getParent()) visit(bone, node.uniqueId, depth + 1, node);
        }
      }
    };
    for (const root of scene.rootNodes) visit(root, -1, 0, null);
    link.thinInstancesLeftOut = leftOut;
    return { nodes, ids, parents, names, depths, naive, hosts, thin };
  }

  function sameStructure(a, b) {
    if (a.ids.length !== b.ids.length || a.thin.length !== b.thin.length) return false;
    for (let i = 0; i < a.thin.length; i++) {
      const [x, y] = [a.thin[i], b.thin[i]];
      if (x.mesh !== y.mesh || x.at !== y.at || x.count !== y.count || x.base !== y.base) {
        return false;
      }
    }
    for (let i = 0; i < a.ids.length; i++) {
      if (a.ids[i] !== b.ids[i] || a.parents[i] !== b.parents[i] || a.names[i] !== b.names[i]) {
        return false;
      }
    }
    return true;
  }

  /** What Babylon did since the last call: the nodes whose world (and local) matrix it
   * wrote, in pre-order, each with its cause. */
  function collect(tree) {
    const local = [], world = [], cause = [];
    const thisFrame = new Map(); // id -> cause, of the nodes recomputed in this frame
    let products = 0;
    tree.nodes.forEach((node, i) => {
      const record = watched.get(node);
      const matrix = node._worldMatrix;
      let recomputed;
      if (record.fresh) recomputed = everComputed(node);
      else if (isBone(node)) recomputed = computedSkeletons.has(node.getSkeleton());
      else recomputed = matrix !== record.world || matrix?.updateFlag !== record.flag;
      record.fresh = false;
      record.world = matrix;
      record.flag = matrix?.updateFlag;
      if (!recomputed) return;
      const id = node.uniqueId;
      const localMatrix = node._localMatrix;
      const localChanged = !localMatrix || localMatrix !== record.local
        || localMatrix.updateFlag !== record.localFlag;
      record.local = localMatrix;
      record.localFlag = localMatrix?.updateFlag;
      let by = causes.get(id) ?? id; // written outside computeWorldMatrix: its own doing
      if (isBone(node) && !localChanged && thisFrame.has(node.getParent()?.uniqueId)) {
        by = thisFrame.get(node.getParent().uniqueId); // its skeleton followed a bone above
      }
      thisFrame.set(id, by);
      lastCause.set(id, by);
      world.push(id);
      cause.push(by);
      if (tree.depths[i] > 0) products += 1;
      // A camera's or light's local is composed in the same call; a transform node's or a
      // bone's when its _localMatrix was written.
      if (localChanged) local.push(id);
    });
    causes = new Map();
    computedSkeletons.clear();
    // Thin instances: written since the last frame (a thin instance that joined counts as
    // written), or following their mesh's recomputed world (the mesh's cause).
    const counts = new Map(tree.thin.map((block) => [block.mesh, block.count]));
    const thin = new Map(); // mesh -> { written, all, from, byMesh: its cause or null }
    for (const [mesh, state] of thinStates) {
      const count = counts.get(mesh) ?? 0;
      const { written, all } = state;
      const from = Math.min(state.from, state.last); // those that joined, from `last` on
      state.written = null;
      state.all = false;
      state.from = Infinity;
      state.last = count;
      if (!count) continue;
      const byMesh = thisFrame.has(mesh.uniqueId) ? thisFrame.get(mesh.uniqueId) : null;
      let n = 0;
      if (all || byMesh !== null) n = count;
      else {
        n = Math.max(0, count - from);
        for (const k of written ?? []) if (k < Math.min(from, count)) n += 1;
      }
      if (!n) continue;
      products += n;
      thin.set(mesh, { written, all, from, byMesh });
    }
    return { local, world, cause, products, thin };
  }

  /** Fold this frame's record into `pending`, then send it if sgview keeps up. */
  link.frame = function frame() {
    if (closed) return;
    link.frameNumber += 1;
    const tree = walk();
    const present = new Set(tree.nodes);
    for (const node of [...watched.keys()]) if (!present.has(node)) unwatch(node);
    for (const node of tree.nodes) if (!previous.has(node)) watch(node, true);
    previous = present;
    const done = collect(tree);
    if (!link.connected || withheld(tree, done)) return;
    pending ??= {
      local: new Set(), world: new Map(), thin: new Map(), merged: 0, products: 0, naive: 0,
    };
    // Per mesh, the writes of the frames merged (`wrote`: every instance written in any
    // of them has its local matrix recomputed), and the latest cause of each instance: a
    // frame that moved the mesh makes it the cause of those written before it.
    const joined = (a, b) => ({
      all: a.all || b.all, from: Math.min(a.from, b.from),
      written: a.written && b.written ? new Set([...a.written, ...b.written])
        : a.written ?? b.written,
    });
    for (const [mesh, now] of done.thin) {
      const was = pending.thin.get(mesh);
      const wrote = was ? joined(was.wrote, now) : now;
      if (!was || now.byMesh !== null) pending.thin.set(mesh, { ...now, wrote });
      else pending.thin.set(mesh, { ...joined(was, now), byMesh: was.byMesh, wrote });
    }
    for (const id of done.local) pending.local.add(id);
    done.world.forEach((id, i) => { pending.world.delete(id); pending.world.set(id, done.cause[i]); });
    pending.merged += 1;
    pending.products += done.products;
    pending.naive += tree.naive;
    if (socket.bufferedAmount > maxBuffered) return; // sgview lags: merge with the next
    send(tree);
  };

  const scratch = {
    local: new Float64Array(16), indices: new Uint32Array(0), valueIds: new Uint32Array(0),
    worldRowIds: null, values: null, worlds: null,
  };

  /** `node`'s local matrix in sgview's convention (in `scratch.local`): Babylon's own
   * (`_localMatrix`) once it composed one; otherwise (a camera, a light, a transform node
   * Babylon never computed, whose `_localMatrix` is still zeros) parent world^-1 · world. */
  function localOf(node, world, flip) {
    if (node._localMatrix && (node._childUpdateId >= 0 || isBone(node))) {
      return toSgview(node._localMatrix.m, flip, scratch.local);
    }
    const parentWorld = node.parent?._worldMatrix;
    if (!parentWorld || !world) return toSgview(world ? world.m : IDENTITY, flip, scratch.local);
    const Matrix = world.constructor;
    scratch.inverse ??= new Matrix();
    scratch.product ??= new Matrix();
    parentWorld.invertToRef(scratch.inverse);
    world.multiplyToRef(scratch.inverse, scratch.product); // row vectors: world = local · parent
    return toSgview(scratch.product.m, flip, scratch.local);
  }

  /** `node`'s world matrix as Babylon holds it (a light may hold none yet); a bone's is
   * its final matrix times its mesh's world, as Babylon places what is attached to it. */
  function worldOf(node, host) {
    if (!host) return node._worldMatrix;
    const Matrix = node._finalMatrix.constructor;
    scratch.bone ??= new Matrix();
    node._finalMatrix.multiplyToRef(host._worldMatrix, scratch.bone);
    return scratch.bone;
  }

  /** 0, 1, ... count - 1, a view of one array kept from frame to frame. */
  function indices(count) {
    if (scratch.indices.length < count) {
      scratch.indices = new Uint32Array(Math.max(count, 2 * scratch.indices.length));
      scratch.indices.forEach((_, k) => { scratch.indices[k] = k; });
    }
    return scratch.indices.subarray(0, count);
  }

  /** What one mesh's thin instances send in this frame, as indices in order: `world`
   * (recomputed, each with `cause(index)`), `local` (those written: their own local
   * matrix), `values` (the value rows due: those sgview does not hold, or whose matrix
   * differs from the one sgview holds, `state.sent`) and `worlds` (the world rows due:
   * those, or all while the mesh's world moved). A call that wrote the whole buffer makes
   * every instance recomputed, but only the matrices that differ are sent again. */
  function thinPart(block, snapshot, alive) {
    const { mesh, count, ids } = block;
    const state = thinStates.get(mesh);
    const known = snapshot ? 0 : Math.min(state.known, count);
    state.known = count;
    const data = mesh._thinInstanceDataStorage.matrixData;
    if (state.sent.length < 16 * count) {
      const grown = new Float32Array(Math.max(16 * count, 2 * state.sent.length));
      grown.set(state.sent);
      state.sent = grown;
    }
    const sentData = state.sent;
    const part = { block, world: [], local: [], values: [], worlds: null, cause: null };
    const p = pending.thin.get(mesh);
    /** The indices `writes` ({ all, from, written }) covers, in order. */
    const covered = (writes) => {
      const from = Math.min(writes.from, count);
      if (writes.all || from === 0) return indices(count);
      const out = [];
      for (const k of writes.written ?? []) if (k < from) out.push(k);
      out.sort((a, b) => a - b);
      for (let k = from; k < count; k++) out.push(k);
      return out;
    };
    if (p) {
      part.world = p.byMesh !== null ? indices(count) : covered(p);
      part.local = covered(p.wrote);
      const own = (k) => p.all || k >= p.from || (p.written?.has(k) ?? false);
      const byMesh = alive.has(p.byMesh) ? p.byMesh : null;
      part.cause = (k) => (own(k) || byMesh === null ? ids[k] : byMesh);
    }
    const differs = (k) => {
      for (let i = 16 * k; i < 16 * k + 16; i++) if (data[i] !== sentData[i]) return true;
      return false;
    };
    for (const k of part.local) if (k < known && differs(k)) part.values.push(k);
    for (let k = known; k < count; k++) part.values.push(k);
    for (const k of part.values) for (let i = 16 * k; i < 16 * k + 16; i++) sentData[i] = data[i];
    const moved = snapshot || pending.world.has(mesh.uniqueId);
    part.worlds = moved ? indices(count) : part.values;
    return part;
  }

  /** Whether the scene is over the viewer's limits, so that nothing is sent (the program
   * told once); the first frame that fits again sends the whole scene. */
  function withheld(tree, done) {
    const { maxNodes, maxMessageBytes } = link.limits;
    const n = nodeCount(tree);
    // A snapshot's frame is the largest message: its rows, with this frame's lists.
    const snapshot = FRAME_HEAD_BYTES + SNAPSHOT_NODE_BYTES * n
      + 4 * (done.local.length + 2 * done.world.length);
    let line = null, limit = null;
    if (n > maxNodes) {
      [line, limit] = [limitLine("nodes", n, maxNodes, url), `nodes ${maxNodes}`];
    } else if (tooBig && n >= tooBig.nodes) {
      [line, limit] = [tooBig.line, `bytes ${maxMessageBytes}`];
    } else if (snapshot > maxMessageBytes) {
      line = limitLine("a snapshot", snapshot, maxMessageBytes, url);
      limit = `bytes ${maxMessageBytes}`;
    }
    if (line === null) {
      link.overLimit = told = null;
      return false;
    }
    needSnapshot = true;
    pending = null;
    tell(line, limit);
    return true;
  }

  /** The nodes the structure lists: the scene's and their thin instances. */
  const nodeCount = (tree) => tree.thin.reduce((sum, block) => sum + block.count, tree.ids.length);

  function tell(line, limit) {
    link.overLimit = line;
    if (told === limit) return;
    told = limit;
    console.warn(line);
    onOverLimit?.(line);
  }

  function send(tree) {
    const snapshot = needSnapshot;
    needSnapshot = false;
    const changed = snapshot || !sameStructure(tree, sent);
    // Each id's place in pre-order: the same as the last frame's while nothing moved.
    const alive = changed ? new Map(tree.ids.map((id, i) => [id, i])) : sent.alive;
    const inOrder = (ids) => [...ids].filter((id) => alive.has(id))
      .sort((a, b) => alive.get(a) - alive.get(b));
    const world = inOrder(pending.world.keys());
    const cause = world.map((id) => {
      const c = pending.world.get(id);
      return alive.has(c) ? c : id;
    });
    // A Babylon matrix changes only when written, and every write is a recompute: the
    // rows to send are the recomputed nodes' and those sgview has not seen yet.
    let rowIds;
    if (snapshot) {
      known.clear();
      heldSent.clear();
      rowIds = tree.ids;
    } else {
      const due = new Set(world);
      for (const id of tree.ids) if (!known.has(id)) due.add(id);
      for (const [bone, host] of tree.hosts) { // a bone's world follows its mesh's
        if (pending.world.has(host.uniqueId)) due.add(bone.uniqueId);
      }
      rowIds = inOrder(due);
    }
    const parts = tree.thin.map((block) => thinPart(block, snapshot, alive));
    if (changed) { // a mesh with none listed: sgview holds none of its thin instances
      const listed = new Set(tree.thin.map((block) => block.mesh));
      for (const [mesh, state] of thinStates) if (!listed.has(mesh)) state.known = 0;
    }
    let [valueCount, worldRowCount] = [rowIds.length, rowIds.length];
    for (const part of parts) {
      valueCount += part.values.length;
      worldRowCount += part.worlds.length;
    }
    const flip = !scene.useRightHandedSystem;
    // The rows go through buffers kept from frame to frame (copied into the message):
    // a frame of 100,000 thin instances would otherwise leave 21 MB to collect.
    const rowCount = Math.max(valueCount, worldRowCount);
    if (scratch.valueIds.length < rowCount) {
      const size = Math.max(rowCount, 2 * scratch.valueIds.length);
      scratch.valueIds = new Uint32Array(size);
      scratch.worldRowIds = new Uint32Array(size);
      scratch.values = new Float64Array(10 * size);
      scratch.worlds = new Float64Array(16 * size);
    }
    const values = scratch.values.subarray(0, 10 * valueCount);
    const worlds = scratch.worlds.subarray(0, 16 * worldRowCount);
    const valueIds = scratch.valueIds.subarray(0, valueCount);
    const worldRowIds = scratch.worldRowIds.subarray(0, worldRowCount);
    let j = 0;
    // Each mesh's thin instances come right after it, as in the structure.
    const weave = (real, pick, put) => {
      let i = 0;
      for (const part of parts) {
        while (i < real.length && alive.get(real[i]) <= part.block.at) put(real[i], i++, null);
        for (const k of pick(part)) put(k, -1, part);
      }
      while (i < real.length) put(real[i], i++, null);
    };
    weave(rowIds, (part) => part.values, (id, i, part) => {
      if (part) {
        const { mesh, ids } = part.block;
        thinValues(mesh._thinInstanceDataStorage.matrixData, id, flip, values, j);
        valueIds[j++] = ids[id];
        return;
      }
      const node = tree.nodes[alive.get(id)];
      valuesOf(localOf(node, worldOf(node, tree.hosts.get(node)), flip), values, 10 * j);
      known.add(id);
      valueIds[j++] = id;
    });
    j = 0;
    weave(rowIds, (part) => part.worlds, (id, i, part) => {
      if (part) {
        const { mesh, ids } = part.block;
        const data = mesh._thinInstanceDataStorage.matrixData;
        thinWorld(data, id, mesh._worldMatrix?.m ?? IDENTITY, flip, worlds, j);
        worldRowIds[j++] = ids[id];
        return;
      }
      const node = tree.nodes[alive.get(id)];
      const matrix = worldOf(node, tree.hosts.get(node));
      toSgview(matrix ? matrix.m : IDENTITY, flip, worlds, 16 * j);
      worldRowIds[j++] = id;
    });
    const local = inOrder(pending.local);
    let [worldCount, localCount] = [world.length, local.length];
    for (const part of parts) {
      worldCount += part.world.length;
      localCount += part.local.length;
    }
    const worldIds = new Uint32Array(worldCount), causeIds = new Uint32Array(worldCount);
    const localIds = new Uint32Array(localCount);
    j = 0;
    weave(world, (part) => part.world, (id, i, part) => {
      worldIds[j] = part ? part.block.ids[id] : id;
      causeIds[j++] = part ? part.cause(id) : cause[i];
    });
    j = 0;
    weave(local, (part) => part.local, (id, i, part) => {
      localIds[j++] = part ? part.block.ids[id] : id;
    });
    if (changed) {
      for (const id of [...known]) if (!alive.has(id)) { known.delete(id); lastCause.delete(id); }
      for (const id of [...heldSent.keys()]) if (!alive.has(id)) heldSent.delete(id);
    }
    // Held reasons as they are now, sent where they differ from what sgview holds (a
    // reason holds there until changed); a removed node's goes with it.
    const held = [];
    tree.nodes.forEach((node, i) => {
      const reason = heldReason(node);
      const id = tree.ids[i];
      if (reason !== (heldSent.get(id) ?? "")) {
        held.push([id, reason]);
        if (reason) heldSent.set(id, reason); else heldSent.delete(id);
      }
    });
    const structure = changed ? treeStructure(tree) : null;
    const message = frameMessage({
      frame: link.frameNumber, merged: pending.merged, structureChanged: changed,
      products: pending.products, naive: pending.naive, local: localIds,
      world: worldIds, cause: causeIds, valueIds, values, worldIds: worldRowIds, worlds, held,
    });
    const biggest = structure && structure.byteLength > message.byteLength ? structure : message;
    if (biggest.byteLength > link.limits.maxMessageBytes) {
      // Not sent: the viewer would refuse it and close the connection. Tried again (as a
      // snapshot) once the scene has fewer nodes, or on a new viewer.
      const what = biggest === structure ? "the structure" : `frame ${link.frameNumber}`;
      const line = limitLine(what, biggest.byteLength, link.limits.maxMessageBytes, url);
      tooBig = { nodes: nodeCount(tree), line };
      needSnapshot = true;
      pending = null;
      tell(line, `bytes ${link.limits.maxMessageBytes}`);
      return;
    }
    if (structure) {
      socket.send(structure);
      sent = { ...tree, alive };
    }
    socket.send(message);
    link.framesSent += pending.merged;
    link.framesMerged += pending.merged - 1;
    pending = null;
  }

  function connect() {
    if (closed) return;
    const started = Date.now();
    let ws;
    try {
      ws = new WebSocketClass(url);
    } catch (error) {
      link.error = String(error);
      setTimeout(connect, RETRY_MS);
      return;
    }
    socket = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = () => ws.send(helloMessage(name, token));
    ws.onmessage = (event) => {
      const view = new DataView(event.data);
      if (view.byteLength >= 20 && view.getUint16(6, true) === WELCOME) {
        link.limits = {
          maxNodes: view.getUint32(8, true),
          maxMessageBytes: Number(view.getBigUint64(12, true)),
        };
        tooBig = null; // a new viewer: its own limits
        needSnapshot = true;
        pending = null;
        link.connected = true;
      }
    };
    ws.onerror = () => {};
    ws.onclose = (event) => {
      if (event.reason) link.error = event.reason;
      link.connected = false;
      if (socket === ws) socket = null;
      if (!closed) setTimeout(connect, Math.max(0, RETRY_MS - (Date.now() - started)));
    };
  }

  // A node made after this call is watched as Babylon adds it, before it can be computed,
  // so the frame it joins reports what Babylon did to it.
  const added = [
    scene.onNewMeshAddedObservable, scene.onNewTransformNodeAddedObservable,
    scene.onNewCameraAddedObservable, scene.onNewLightAddedObservable,
  ].map((observable) => [observable, observable.add((node) => watch(node, true))]);
  const afterRender = auto ? scene.onAfterRenderObservable.add(() => link.frame()) : null;

  /** Stop: Babylon's own methods back on every node, the connection closed. */
  link.close = function close() {
    closed = true;
    for (const node of [...watched.keys()]) unwatch(node);
    for (const [observable, observer] of added) observable.remove(observer);
    for (const [skeleton, observer] of skeletons) skeleton.onBeforeComputeObservable.remove(observer);
    if (afterRender) scene.onAfterRenderObservable.remove(afterRender);
    if (socket) socket.close();
  };

  previous = new Set(walk().nodes);
  for (const node of previous) watch(node, false); // from the first frame on
  connect();
  return link;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
