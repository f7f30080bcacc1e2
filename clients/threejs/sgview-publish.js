// sgview-publish: send a three.js scene's frames to sgview (`sgview listen`), over the
// attach protocol of sgview's docs/attach.md (binary WebSocket messages, little-endian).
//
// What is sent is what three really did: each object's `updateMatrix` and its
// `matrixWorld`'s `copy` / `multiplyMatrices` are observed (own properties that call
// three's methods), so a frame reports every object whose local matrix three composed
// (matrixAutoUpdate) and every object whose world matrix it recomputed, with the reason:
// the object itself (matrixAutoUpdate, or matrixWorldNeedsUpdate set by hand) or the
// ancestor that forced it. Local and world matrices are sent only when they changed, so
// sgview shows both what three recomputed and what actually moved. The world matrices
// sent are `matrixWorld` as three holds it after the program's own update: never
// recomputed here, so one three left stale shows in sgview as stale. Each watched object's
// `add` and `attach` are observed too, so an object added is watched from the frame it
// joins.
//
// The viewer's welcome says its limits (the most nodes a structure may list, the largest
// message): a scene over them is not sent, since the viewer would refuse it and the link
// would reconnect to be refused again. The program is told once (console.warn, and
// `link.overLimit` holds the line while nothing is sent); the link stays connected and sends
// the whole scene again once it fits, or when a viewer with other limits takes it.

const MAGIC = [0x53, 0x47, 0x56, 0x57]; // "SGVW"
const VERSION = 1;
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

/** A name as sgview takes it: the text itself (names are data; sgview escapes what it
 * cannot print safely when it shows them), cut to at most 1024 bytes of UTF-8 between
 * characters. A lone surrogate, which UTF-8 cannot hold, goes as U+FFFD (TextEncoder's
 * rule). */
function cleanName(text) {
  const name = String(text);
  if (encoder.encode(name).length <= NAME_BYTES_MAX) return name;
  let kept = "";
  let bytes = 0;
  for (const ch of name) { // code points: a cut never splits a surrogate pair
    bytes += encoder.encode(ch).length;
    if (bytes > NAME_BYTES_MAX) break;
    kept += ch;
  }
  return kept;
}

function header(view, kind) {
  MAGIC.forEach((byte, i) => view.setUint8(i, byte));
  view.setUint16(4, VERSION, true);
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

function frameMessage(f) {
  const counts = [f.local.length, f.world.length, f.valueIds.length, f.worldIds.length];
  const [nl, nw, nv, nm] = counts;
  const size = 64 + 4 * (nl + 2 * nw + nv + nm) + 80 * nv + 128 * nm; // header + 56
  const buffer = new ArrayBuffer(size);
  const view = new DataView(buffer);
  header(view, FRAME);
  view.setBigInt64(8, BigInt(f.frame), true);
  view.setUint32(16, f.merged, true);
  view.setUint32(20, f.structureChanged ? 1 : 0, true);
  view.setBigUint64(24, 0n, true); // suppressed: three has no such notion
  view.setBigUint64(32, BigInt(f.products), true);
  view.setBigUint64(40, BigInt(f.naive), true);
  counts.forEach((c, i) => view.setUint32(48 + 4 * i, c, true));
  let at = 64;
  const u32 = (list) => { for (const v of list) { view.setUint32(at, v, true); at += 4; } };
  const f64 = (list) => { for (const v of list) { view.setFloat64(at, v, true); at += 8; } };
  u32(f.local); u32(f.world); u32(f.cause); u32(f.valueIds);
  for (const row of f.values) f64(row);
  u32(f.worldIds);
  for (const elements of f.worlds) f64(elements); // three's elements: column by column
  return buffer;
}

/** The local values sgview keeps (position, quaternion x y z w, scale) of the matrix
 * three uses for `object` (`object.matrix`, also when matrixAutoUpdate is off). */
function valuesOf(object, scratch) {
  const { position, quaternion, scale } = scratch;
  object.matrix.decompose(position, quaternion, scale);
  const row = [position.x, position.y, position.z, quaternion.x, quaternion.y,
    quaternion.z, quaternion.w, scale.x, scale.y, scale.z];
  if (!row.slice(3, 7).every(Number.isFinite)) row.splice(3, 4, 0, 0, 0, 1); // zero scale
  return row.map((v) => (Number.isFinite(v) ? v : 0));
}

function sameElements(cached, elements) {
  if (!cached) return false;
  for (let i = 0; i < 16; i++) if (cached[i] !== elements[i]) return false;
  return true;
}

/**
 * Publish `scene` to the sgview listening at `url`. Call `link.frame()` once per frame
 * after three updated the matrices (after `renderer.render(scene, camera)`, or
 * `scene.updateMatrixWorld()`); `options.auto` does that from `scene.onAfterRender`.
 * Returns at once; sending never blocks the page: while sgview lags (the socket's
 * bufferedAmount over `maxBuffered`), frames are merged and sent as one. While the scene
 * is over the viewer's limits (`link.limits`, from its welcome) nothing is sent:
 * `link.overLimit` holds the line that says so, told once by console.warn and
 * `options.onOverLimit(line)`.
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
  const name = options.name ?? "three.js";
  const token = options.token ?? "";
  const maxBuffered = options.maxBuffered ?? 8 * 1024 * 1024;
  const Scratch = scene.position.constructor; // three's Vector3, from the scene itself
  const scratch = {
    position: new Scratch(), scale: new Scratch(),
    quaternion: scene.quaternion.clone(),
  };
  const link = {
    connected: false, framesSent: 0, framesMerged: 0, error: null, limits: null,
    overLimit: null,
  };
  const onOverLimit = options.onOverLimit ?? null;
  let told = null; // the limit the program was told of, while over it
  let tooBig = null; // the node count when a message was over the bytes limit
  const watched = new Map(); // object -> its original methods
  let socket = null;
  let closed = false;
  let frameNumber = 0;
  let needSnapshot = false;
  let sent = { ids: [], parents: [], names: [] };
  const lastLocal = new Map(); // id -> Float64Array(16) of the matrix last sent
  const lastWorld = new Map();
  // Since the last frame() call: what three did (in call order, which is pre-order).
  let recorded = { local: new Set(), world: new Map(), products: 0 };
  let pending = null; // frames merged while sgview lags

  function watch(object) {
    if (watched.has(object)) return;
    const matrixWorld = object.matrixWorld;
    const original = {
      updateMatrix: object.updateMatrix, matrixWorld,
      copy: matrixWorld.copy, multiplyMatrices: matrixWorld.multiplyMatrices,
      add: object.add, attach: object.attach,
    };
    watched.set(object, original);
    // An object added (with its subtree) is watched before three updates it, so the frame
    // it joins reports what three did to it, not only the frame after.
    const joining = (child) => { if (child && child.isObject3D) child.traverse(watch); };
    object.add = function add(...children) {
      children.forEach(joining);
      return original.add.apply(this, children);
    };
    object.attach = function attach(child, ...rest) {
      joining(child);
      return original.attach.call(this, child, ...rest);
    };
    object.updateMatrix = function updateMatrix(...args) {
      recorded.local.add(this.id);
      return original.updateMatrix.apply(this, args);
    };
    const world = () => {
      const parent = object.parent;
      const forced = !object.matrixWorldNeedsUpdate && parent && recorded.world.has(parent.id);
      recorded.world.set(object.id, forced ? recorded.world.get(parent.id) : object.id);
    };
    matrixWorld.copy = function copy(...args) {
      world();
      return original.copy.apply(this, args);
    };
    matrixWorld.multiplyMatrices = function multiplyMatrices(...args) {
      world();
      recorded.products += 1;
      return original.multiplyMatrices.apply(this, args);
    };
  }

  function unwatch(object) {
    const original = watched.get(object);
    delete object.updateMatrix;
    delete object.add;
    delete object.attach;
    delete original.matrixWorld.copy;
    delete original.matrixWorld.multiplyMatrices;
    watched.delete(object);
  }

  function walk() {
    const objects = [], ids = [], parents = [], names = [], depth = new Map();
    let naive = 0;
    scene.traverse((object) => { // pre-order, children in their order: as sgview's
      const parent = object.parent && depth.has(object.parent.id) ? object.parent : null;
      const d = parent ? depth.get(parent.id) + 1 : 0;
      depth.set(object.id, d);
      naive += d;
      objects.push(object);
      ids.push(object.id);
      parents.push(parent ? parent.id : -1);
      names.push(cleanName(object.name || object.type));
    });
    return { objects, ids, parents, names, naive };
  }

  function sameStructure(a, b) {
    if (a.ids.length !== b.ids.length) return false;
    for (let i = 0; i < a.ids.length; i++) {
      if (a.ids[i] !== b.ids[i] || a.parents[i] !== b.parents[i] || a.names[i] !== b.names[i]) {
        return false;
      }
    }
    return true;
  }

  /** Fold this frame's record into `pending`, then send it if sgview keeps up. */
  link.frame = function frame() {
    if (closed) return;
    frameNumber += 1;
    const tree = walk();
    const present = new Set(tree.ids);
    for (const object of tree.objects) watch(object);
    for (const object of [...watched.keys()]) if (!present.has(object.id)) unwatch(object);
    const done = recorded;
    recorded = { local: new Set(), world: new Map(), products: 0 };
    if (!link.connected || withheld(tree, done)) return;
    pending ??= { local: new Set(), world: new Map(), merged: 0, products: 0, naive: 0 };
    for (const id of done.local) pending.local.add(id);
    for (const [id, cause] of done.world) { pending.world.delete(id); pending.world.set(id, cause); }
    pending.merged += 1;
    pending.products += done.products;
    pending.naive += tree.naive;
    if (socket.bufferedAmount > maxBuffered) return; // sgview lags: merge with the next
    send(tree);
  };

  /** Whether the scene is over the viewer's limits, so that nothing is sent (the program
   * told once); the first frame that fits again sends the whole scene. */
  function withheld(tree, done) {
    const { maxNodes, maxMessageBytes } = link.limits;
    const n = tree.ids.length;
    // A snapshot's frame is the largest message: its rows, with this frame's lists.
    const snapshot = FRAME_HEAD_BYTES + SNAPSHOT_NODE_BYTES * n
      + 4 * (done.local.size + 2 * done.world.size);
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
    const alive = new Map(tree.ids.map((id, i) => [id, i]));
    const inOrder = (ids) => [...ids].filter((id) => alive.has(id))
      .sort((a, b) => alive.get(a) - alive.get(b));
    const world = inOrder(pending.world.keys());
    const cause = world.map((id) => {
      const c = pending.world.get(id);
      return alive.has(c) ? c : id;
    });
    const valueIds = [], values = [], worldIds = [], worlds = [];
    tree.objects.forEach((object) => {
      const local = object.matrix.elements;
      if (snapshot || !sameElements(lastLocal.get(object.id), local)) {
        valueIds.push(object.id);
        values.push(valuesOf(object, scratch));
        lastLocal.set(object.id, Float64Array.from(local));
      }
      const elements = object.matrixWorld.elements;
      if (snapshot || !sameElements(lastWorld.get(object.id), elements)) {
        worldIds.push(object.id);
        worlds.push(Float64Array.from(elements));
        lastWorld.set(object.id, Float64Array.from(elements));
      }
    });
    for (const id of [...lastLocal.keys()]) {
      if (!alive.has(id)) { lastLocal.delete(id); lastWorld.delete(id); }
    }
    const structure = changed ? structureMessage(tree.ids, tree.parents, tree.names) : null;
    const message = frameMessage({
      frame: frameNumber, merged: pending.merged, structureChanged: changed,
      products: pending.products, naive: pending.naive, local: inOrder(pending.local),
      world, cause, valueIds, values, worldIds, worlds,
    });
    const biggest = structure && structure.byteLength > message.byteLength ? structure : message;
    if (biggest.byteLength > link.limits.maxMessageBytes) {
      // Not sent: the viewer would refuse it and close the connection. Tried again (as a
      // snapshot) once the scene has fewer nodes, or on a new viewer.
      const what = biggest === structure ? "the structure" : `frame ${frameNumber}`;
      const line = limitLine(what, biggest.byteLength, link.limits.maxMessageBytes, url);
      tooBig = { nodes: tree.ids.length, line };
      needSnapshot = true;
      pending = null;
      tell(line, `bytes ${link.limits.maxMessageBytes}`);
      return;
    }
    if (structure) {
      socket.send(structure);
      sent = tree;
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

  const previousHook = scene.onAfterRender;
  if (options.auto) {
    scene.onAfterRender = function onAfterRender(...args) {
      previousHook.apply(this, args);
      link.frame();
    };
  }

  /** Stop: three's own methods back on every object, the connection closed. */
  link.close = function close() {
    closed = true;
    for (const object of [...watched.keys()]) unwatch(object);
    if (options.auto) scene.onAfterRender = previousHook;
    if (socket) socket.close();
  };

  for (const object of walk().objects) watch(object); // from the first frame on
  connect();
  return link;
}
