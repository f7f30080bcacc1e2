"""Errors of the core. Each names the nodes involved; none leaves the graph half-changed."""

from ..errors import SgviewError


class HierarchyError(SgviewError, ValueError):
    """A structural request that would break the tree: self-parenting, a cycle, a node
    from another graph, a removed node, or a duplicate name."""
