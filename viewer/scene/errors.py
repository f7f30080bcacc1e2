"""Errors of the core. Each names the nodes involved; none leaves the graph half-changed."""


class HierarchyError(ValueError):
    """A structural request that would break the tree: self-parenting, a cycle, a node
    from another graph, a removed node, or a duplicate name."""
