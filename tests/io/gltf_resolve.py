"""A glTF document with its indices followed, for comparing objects across files.

Written from the glTF 2.0 specification for the tests, independently of the exporter's
index bookkeeping: every index is replaced by the content it names (accessors by their
elements' bytes, images by their bytes, nodes by their names), so an object copied into
another file with different indices resolves to the same value.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from pathlib import Path

import numpy as np

_SIZE = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


class Resolved:
    """One file, read with nothing but json and struct."""

    def __init__(self, path: Path) -> None:
        data = Path(path).read_bytes()
        self.folder = Path(path).parent
        self.bin = None
        if data[:4] == b"glTF":
            n = struct.unpack_from("<I", data, 12)[0]
            self.doc = json.loads(data[20 : 20 + n])
            rest = 20 + n
            if rest < len(data):
                m = struct.unpack_from("<I", data, rest)[0]
                self.bin = data[rest + 8 : rest + 8 + m]
        else:
            self.doc = json.loads(data)

    def _uri(self, uri: str) -> bytes:
        if uri.startswith("data:"):
            return base64.b64decode(uri.split(",", 1)[1])
        return (self.folder / urllib.parse.unquote(uri)).read_bytes()

    def buffer(self, i: int) -> bytes:
        buf = self.doc["buffers"][i]
        return self.bin if "uri" not in buf else self._uri(buf["uri"])

    def view(self, i: int) -> bytes:
        v = self.doc["bufferViews"][i]
        start = v.get("byteOffset", 0)
        return self.buffer(v["buffer"])[start : start + v["byteLength"]]

    def accessor(self, i: int):
        a = self.doc["accessors"][i]
        size, width = _SIZE[a["componentType"]], _WIDTH[a["type"]]
        raw = b""
        if "bufferView" in a:
            view = self.view(a["bufferView"])
            stride = self.doc["bufferViews"][a["bufferView"]].get("byteStride") or size * width
            off = a.get("byteOffset", 0)
            raw = b"".join(view[off + k * stride : off + k * stride + size * width]
                           for k in range(a["count"]))  # fmt: skip
        meta = {k: v for k, v in a.items() if k not in ("bufferView", "byteOffset", "sparse")}
        sparse = a.get("sparse")
        if sparse:
            meta["sparse"] = (sparse["count"], self.view(sparse["indices"]["bufferView"]),
                              self.view(sparse["values"]["bufferView"]))  # fmt: skip
        return ("accessor", json.dumps(meta, sort_keys=True), raw)

    def image(self, i: int) -> bytes:
        im = self.doc["images"][i]
        return self._uri(im["uri"]) if "uri" in im else self.view(im["bufferView"])

    def texture(self, i: int):
        t = self.doc["textures"][i]
        sampler = self.doc["samplers"][t["sampler"]] if "sampler" in t else None
        return {"sampler": sampler, "image": self.image(t["source"]) if "source" in t else None,
                "rest": {k: v for k, v in t.items() if k not in ("sampler", "source")}}  # fmt: skip

    def _infos(self, value):
        """A material with every texture info's index replaced by the texture."""
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k.endswith("Texture") and isinstance(v, dict) and "index" in v:
                    v = {**v, "index": self.texture(v["index"])}
                out[k] = self._infos(v)
            return out
        if isinstance(value, list):
            return [self._infos(v) for v in value]
        return value

    def mesh(self, i: int):
        m = self.doc["meshes"][i]
        prims = []
        for p in m["primitives"]:
            q = {k: v for k, v in p.items() if k not in ("attributes", "indices", "material",
                                                         "targets")}  # fmt: skip
            q["attributes"] = {k: self.accessor(v) for k, v in p["attributes"].items()}
            q["targets"] = [{k: self.accessor(v) for k, v in t.items()}
                            for t in p.get("targets", [])]  # fmt: skip
            if "indices" in p:
                q["indices"] = self.accessor(p["indices"])
            if "material" in p:
                q["material"] = self._infos(self.doc["materials"][p["material"]])
            prims.append(q)
        return {**{k: v for k, v in m.items() if k != "primitives"}, "primitives": prims}

    def name(self, i: int) -> str:
        return self.doc["nodes"][i].get("name", f"node{i}")

    def node(self, i: int, prefix: str = ""):
        n = self.doc["nodes"][i]
        out = {k: v for k, v in n.items() if k not in ("children", "mesh", "skin", "camera",
                                                       "extensions", "name")}  # fmt: skip
        if "mesh" in n:
            out["mesh"] = self.mesh(n["mesh"])
        if "camera" in n:
            out["camera"] = self.doc["cameras"][n["camera"]]
        if "skin" in n:
            s = self.doc["skins"][n["skin"]]
            out["skin"] = {"joints": [prefix + self.name(j) for j in s["joints"]],
                           "ibm": self.accessor(s["inverseBindMatrices"])
                           if "inverseBindMatrices" in s else None}  # fmt: skip
        ext = dict(n.get("extensions", {}))
        if "KHR_lights_punctual" in ext:
            lights = self.doc["extensions"]["KHR_lights_punctual"]["lights"]
            ext["KHR_lights_punctual"] = lights[ext["KHR_lights_punctual"]["light"]]
        if "EXT_mesh_gpu_instancing" in ext:
            attrs = ext["EXT_mesh_gpu_instancing"]["attributes"]
            ext["EXT_mesh_gpu_instancing"] = {k: self.accessor(v) for k, v in attrs.items()}
        out["extensions"] = ext
        out["children"] = sorted(prefix + self.name(c) for c in n.get("children", []))
        return out

    def animations(self, prefix: str = "") -> list:
        out = []
        for a in self.doc.get("animations", []):
            channels = []
            for ch in a["channels"]:
                s = a["samplers"][ch["sampler"]]
                target = {**ch["target"], "node": prefix + self.name(ch["target"]["node"])}
                channels.append(
                    (
                        json.dumps(target, sort_keys=True),
                        self.accessor(s["input"]),
                        self.accessor(s["output"]),
                        s.get("interpolation", "LINEAR"),
                    )
                )
            out.append((a.get("name"), sorted(channels)))  # fmt: skip
        return out

    def nodes_by_name(self, prefix: str = "") -> dict:
        return {prefix + self.name(i): self.node(i, prefix) for i in range(len(self.doc["nodes"]))}


def same_elements(a, b) -> bool:
    """Accessor tuples compare by metadata and bytes; min/max may be added on export."""
    return _strip(a) == _strip(b)


def _strip(value):
    if isinstance(value, tuple) and value and value[0] == "accessor":
        meta = json.loads(value[1])
        meta.pop("min", None)
        meta.pop("max", None)
        return ("accessor", json.dumps(meta, sort_keys=True), np.frombuffer(value[2], np.uint8)
                .tobytes())  # fmt: skip
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_strip(v) for v in value)
    return value
