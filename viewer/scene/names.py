"""Names made of a prefix and a running number: a batch of names unique by construction.

Why: ``SceneGraph.add_many`` must check that no two names of a batch are equal, which
for a million names costs hashing and sorting them all (about 0.15 s). Names such as
``Node0, Node1, ...`` (what ``names=None`` gives) or a generated scene's ``Obj1 ... ObjN``
cannot repeat: ``str`` of distinct integers differ, and so do they after one prefix. A
batch given as `NumberedNames` is checked only against the graph's live names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


class NumberedNames(Sequence[str]):
    """``prefix + str(start + j)`` for ``j`` in ``range(count)``, as a read-only sequence."""

    __slots__ = ("_prefix", "_start", "_count")

    def __init__(self, prefix: str, start: int, count: int) -> None:
        if type(prefix) is not str:  # (a subclass could format itself as anything)
            raise TypeError(f"the prefix must be a str, got {prefix!r}")
        if not (isinstance(start, int) and isinstance(count, int)) or count < 0:
            raise ValueError(f"expected whole numbers, count >= 0, got {start!r}, {count!r}")
        self._prefix, self._start, self._count = prefix, start, count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, j):  # type: ignore[override]
        if isinstance(j, slice):
            return [self._name(i) for i in range(*j.indices(self._count))]
        j = int(j)
        if j < 0:
            j += self._count
        if not 0 <= j < self._count:
            raise IndexError("name index out of range")
        return self._name(j)

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_list())

    def _name(self, j: int) -> str:
        return f"{self._prefix}{self._start + j}"

    def to_list(self) -> list[str]:
        """Every name, as a list (one comprehension: the quickest way to make them)."""
        prefix = self._prefix
        return [f"{prefix}{i}" for i in range(self._start, self._start + self._count)]

    def __repr__(self) -> str:
        return f"NumberedNames({self._prefix!r}, {self._start}, {self._count})"
