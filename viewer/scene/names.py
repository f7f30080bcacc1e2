"""Names made of a prefix and a running number: a batch of names unique by construction.

Why: ``SceneGraph.add_many`` must check that no two names of a batch are equal, which
for a million names costs hashing and sorting them all (about 0.15 s). Names such as
``Node0, Node1, ...`` (what ``names=None`` gives) or a generated scene's ``Obj1 ... ObjN``
cannot repeat: ``str`` of distinct integers differ, and so do they after one prefix. A
batch given as `NumberedNames` is checked only against the graph's live names, and
`NodeNames`, which holds a graph's names, keeps a first such batch unmade.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import overload


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

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> list[str]: ...
    def __getitem__(self, j: int | slice) -> str | list[str]:
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


#: One-by-one reads of a numbered batch's names after which `NodeNames` makes them all
#: (or a sixteenth of the batch, if more): a few panels' worth stays cheap, a save not.
MADE_AFTER = 4096


class NodeNames:
    """The names of a graph's ids, in id order, read and written as a list would be.

    A fresh graph's first batch, given as `NumberedNames`, stays unmade: a million names
    are 64 MB of strings and 0.1 s to make, and before the first frame nothing reads
    more than a few (one node's name is made when asked for). Everything is made, once,
    when a name of that batch is written (a rename, a restore), when all are read (an
    iteration: the name index, a snapshot), or after `MADE_AFTER` reads of one name
    each (a save reads every name: made one by one, they cost 2.5 times as much)."""

    __slots__ = ("_parts", "_reads", "at")

    def __init__(self) -> None:
        self._reads = 0  # names of the head made one by one so far
        self._use(None, [])

    def _use(self, head: NumberedNames | None, rest: list[str]) -> None:
        #: (the names of ids 0 .. len(head) - 1 or None, the names of the ids after
        #: them): one attribute, replaced whole, so a reader never sees half a change.
        self._parts = (head, rest)
        #: ``at(i)``: the name of id ``i`` (0 <= i < len), for the hot readers: the
        #: list's own C method once every name is made (``[i]`` costs twice as much).
        self.at = rest.__getitem__ if head is None else self.__getitem__

    def made(self) -> list[str]:
        """Every name, in the list that holds them from now on (made now if not yet: a
        reader of every name wants them all)."""
        head, rest = self._parts
        if head is not None:
            made = head.to_list()
            made.extend(rest)
            self._use(None, made)
            return made
        return rest

    def add(self, names: NumberedNames | list[str]) -> None:
        """Append a batch: a `NumberedNames` (kept unmade when it comes first), or a list
        the caller hands over (kept as it is when it comes first)."""
        if len(self) == 0:
            self._use(*((names, []) if isinstance(names, NumberedNames) else (None, names)))
        else:
            self._parts[1].extend(names.to_list() if isinstance(names, NumberedNames) else names)

    def append(self, name: str) -> None:
        self._parts[1].append(name)

    def __len__(self) -> int:
        head, rest = self._parts
        return len(rest) + (0 if head is None else len(head))

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        head, rest = self._parts
        if head is None:
            return rest[i]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        m = len(head)
        if i < 0:
            i += m + len(rest)
        if 0 <= i < m:
            self._reads += 1
            if self._reads > max(MADE_AFTER, m >> 4):
                return self.made()[i]
            return head[i]
        if i < 0:
            raise IndexError("name index out of range")
        return rest[i - m]

    def __setitem__(self, i: int, value: str) -> None:
        self.made()[i] = value

    def __iter__(self) -> Iterator[str]:
        return iter(self.made())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodeNames):
            other = list(other)
        return isinstance(other, list) and list(self) == other


#: Dicts a `NameIndex` spreads its names over (a power of two), and the mask that picks
#: a name's: ``shards[hash(name) & SHARD_MASK]``.
SHARDS = 64
SHARD_MASK = SHARDS - 1


class NameIndex:
    """Each live node's id by its name, read and written as a dict would be, held in
    `SHARDS` dicts chosen by the name's hash.

    Why not one dict: a dict grows by building a table three times its size and
    re-inserting every entry, all inside the one insertion that crossed its threshold. At
    699,050 names that insertion took 20 ms, at 1,398,101 about 45 ms: a pause inside one
    ``add``. Each of the shards holds a 64th of the names and grows on its own, its
    largest growth a 64th of that (under 1 ms at two million names), for a Python
    method call more per lookup by name (``add`` picks its shard itself, in the
    ``hash(name) & SHARD_MASK`` of every method here). Iteration is in id order (the
    order of the ids is what a reader can rely on; the shards' order follows the
    process's string hashing)."""

    __slots__ = ("shards",)

    def __init__(self, names: Iterable[str] = (), ids: Iterable[int] = ()) -> None:
        """The index of ``names[j]`` -> ``ids[j]``."""
        shards: list[dict[str, int]] = [{} for _ in range(SHARDS)]
        mask = SHARD_MASK
        for name, i in zip(names, ids):
            shards[hash(name) & mask][name] = i
        #: The dicts; a hot path (``add``) indexes its name's shard itself:
        #: ``shards[hash(name) & SHARD_MASK]`` saves a method call.
        self.shards = shards

    def __contains__(self, name: object) -> bool:
        return name in self.shards[hash(name) & SHARD_MASK]

    def __getitem__(self, name: str) -> int:
        return self.shards[hash(name) & SHARD_MASK][name]

    def get(self, name: str) -> int | None:
        return self.shards[hash(name) & SHARD_MASK].get(name)

    def __setitem__(self, name: str, i: int) -> None:
        self.shards[hash(name) & SHARD_MASK][name] = i

    def __delitem__(self, name: str) -> None:
        del self.shards[hash(name) & SHARD_MASK][name]

    def update(self, pairs: Iterable[tuple[str, int]]) -> None:
        shards, mask = self.shards, SHARD_MASK
        for name, i in pairs:
            shards[hash(name) & mask][name] = i

    def isdisjoint(self, names: Iterable[object]) -> bool:
        """No name of ``names`` is in the index (an unhashable one: a TypeError)."""
        shards, mask = self.shards, SHARD_MASK
        return not any(name in shards[hash(name) & mask] for name in names)

    def __len__(self) -> int:
        return sum(map(len, self.shards))

    def __iter__(self) -> Iterator[str]:
        pairs = sorted(chain.from_iterable(shard.items() for shard in self.shards), key=_id)
        return (name for name, _ in pairs)


def _id(pair: tuple[str, int]) -> int:
    return pair[1]
