"""Collision tests in plain numpy (no GL): disks, spheres and rays against boxes.

docs/semantics.md section 6 is the contract: fold the ball's centre, expressed in the box's
frame, into the first quadrant (octant) and compare with the half-sizes; touching is not a
hit. An oriented box takes its unit axes from the normalised columns of its node's world
matrix (`rect_axes`, `box_axes`).

- `planar`: disk against rectangle in the XY plane (`disk_vs_aabb`, `disk_vs_rect`,
  `disk_vs_obb`, their `_batch` forms, `rect_axes`, `rect_coords`, `rect_from_world`,
  `axis_aligned_size`).
- `solid`: sphere against box (`sphere_vs_aabb`, `sphere_vs_box`, `sphere_vs_obb`, their
  `_batch` forms, `box_axes`, `box_coords`, `box_from_world`).
- `ray`: ray against boxes by the slab method (`ray_vs_aabb`, `ray_vs_obb`, their `_batch`
  forms); `pick`, the nearest of many boxes (unchecked, for clicks in the view), is built
  on its unchecked kernels.

Arguments are checked (shapes, sizes >= 0, finite values, unit axes) and a bad one raises
ValueError naming it. Scalar forms return bool (or float for rays); `_batch` forms take N
balls, with the box shared or given per ball, and return arrays of shape (N,) computed
without a Python loop over the items.
"""

from .planar import (
    axis_aligned_size,
    disk_vs_aabb,
    disk_vs_aabb_batch,
    disk_vs_obb,
    disk_vs_obb_batch,
    disk_vs_rect,
    disk_vs_rect_batch,
    rect_axes,
    rect_coords,
    rect_from_world,
)
from .ray import ray_vs_aabb, ray_vs_aabb_batch, ray_vs_obb, ray_vs_obb_batch
from .solid import (
    box_axes,
    box_coords,
    box_from_world,
    sphere_vs_aabb,
    sphere_vs_aabb_batch,
    sphere_vs_box,
    sphere_vs_box_batch,
    sphere_vs_obb,
    sphere_vs_obb_batch,
)

__all__ = [
    "axis_aligned_size",
    "box_axes",
    "box_coords",
    "box_from_world",
    "disk_vs_aabb",
    "disk_vs_aabb_batch",
    "disk_vs_obb",
    "disk_vs_obb_batch",
    "disk_vs_rect",
    "disk_vs_rect_batch",
    "ray_vs_aabb",
    "ray_vs_aabb_batch",
    "ray_vs_obb",
    "ray_vs_obb_batch",
    "rect_axes",
    "rect_coords",
    "rect_from_world",
    "sphere_vs_aabb",
    "sphere_vs_aabb_batch",
    "sphere_vs_box",
    "sphere_vs_box_batch",
    "sphere_vs_obb",
    "sphere_vs_obb_batch",
]
