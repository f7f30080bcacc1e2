"""Caps that keep a hostile or broken scene file from exhausting the machine.

A scene file is untrusted input: a few hundred bytes can claim a billion vertices, and a
small TOML file can include the same glTF model thousands of times. The loaders check
every claim against these caps *before* allocating, and refuse with a `SceneError` that
names the cap and the flag that raises it::

    big.glb: accessor 0: needs 3,221,225,472 bytes of data, over the limit of
    268,435,456 bytes (--max-buffer-mb 256)

- `max_nodes`: nodes in one scene, counting every node a glTF include adds, and the N of
  a generated scene (``sgview --max-nodes N``).
- `max_buffer_bytes`: the size of any one file the glTF reader opens (the ``.gltf`` or
  ``.glb`` itself, each external ``.bin``), of each buffer, and of all the vertex and
  index data read out of one glTF file together (``sgview --max-buffer-mb MB``). The
  arrays made from that data (float64 copies, normals) keep a load's peak memory within
  a small multiple of this.

Includes do not nest: an include names a glTF file, and a glTF file cannot name another
scene (its URIs reach only buffers and images in its own folder), so the include depth is
at most one and an include cycle cannot form. A ``.toml`` file named as an include or a
mesh is refused. Each glTF file is read once per load however often it is included.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import SceneError

__all__ = ["DEFAULT_LIMITS", "MAX_BUFFER_BYTES", "MAX_NODES", "Limits"]

#: Default cap on the nodes of one scene (also the largest generated scene).
MAX_NODES = 10_000_000
#: Default cap on glTF files, buffers and vertex data: 256 MiB.
MAX_BUFFER_BYTES = 256 * 1024 * 1024
_MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The caps one load works under; see the module docstring."""

    max_nodes: int = MAX_NODES
    max_buffer_bytes: int = MAX_BUFFER_BYTES

    @classmethod
    def make(cls, max_nodes: object, max_buffer_bytes: object) -> Limits:
        """Checked limits from keyword arguments; ValueError unless positive whole numbers."""
        for name, value in (("max_nodes", max_nodes), ("max_buffer_bytes", max_buffer_bytes)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive whole number, got {value!r}")
        return cls(max_nodes, max_buffer_bytes)

    def node_error(self, count: int, file: str | None, what: str = "the scene") -> SceneError:
        return SceneError(
            f"{what} has {count:,} nodes, over the limit of {self.max_nodes:,} "
            f"(--max-nodes {self.max_nodes})",
            file=file,
        )

    def check_nodes(self, count: int, file: str | None, what: str = "the scene") -> None:
        """Raise if `count` nodes would exceed `max_nodes`."""
        if count > self.max_nodes:
            raise self.node_error(count, file, what)

    def bytes_reason(self, need: int, what: str) -> str | None:
        """Why `need` bytes of `what` are refused, or None when they fit."""
        if need <= self.max_buffer_bytes:
            return None
        return (
            f"{what} is {need:,} bytes, over the limit of {self.max_buffer_bytes:,} bytes "
            f"(--max-buffer-mb {_megabytes(self.max_buffer_bytes)})"
        )


def _megabytes(n: int) -> str:
    mb = n / _MB
    return str(int(mb)) if mb.is_integer() else f"{mb:.6g}"


DEFAULT_LIMITS = Limits()
