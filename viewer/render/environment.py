"""The image-based light of glTF materials: a neutral room, prefiltered for roughness.

The reference viewers (three.js's editor with its RoomEnvironment, the Khronos sample
viewer) light a model by an environment rather than by one lamp, so that a white
dielectric reads white and a metal reflects something. sgview builds the same kind of
room in numpy, ray cast from its centre: a white box room 31.7 x 28.3 x 28.6 lit by one
bright point lamp near the ceiling (diffuse walls, the lamp's light falling off with
distance as glTF point lights do), six white blocks standing on the floor and six
emissive panels (left, right, front, back and overhead) that make the highlights. The
numbers are three.js's RoomEnvironment (r155 and later), so models look as they do there.

What the shader gets (computed once per process, `environment_maps`):
- the radiance prefiltered for `LEVELS` roughnesses (0, 1/(LEVELS-1), ..., 1) by the GGX
  lobe (the split-sum approximation), each an octahedral map of `SIZE` x `SIZE` texels
  (`octahedral_uv` maps a direction): the sharp levels by filtered importance sampling,
  the rough ones (from `CONVOLVED_FROM`) by convolving every texel of a small copy of the
  room with the lobe;
- the irradiance as 9 spherical-harmonic coefficients, convolved with the cosine lobe and
  divided by pi (the outgoing radiance of a white Lambert surface);
- the split-sum table of the GGX BRDF with the height-correlated Smith visibility:
  (scale, bias) of F0 by (n.v, roughness).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

__all__ = [
    "LEVELS",
    "SIZE",
    "EnvironmentMaps",
    "environment_maps",
    "octahedral_uv",
    "room_radiance",
]

#: Roughness levels of the prefiltered radiance, and the texels per side of each.
LEVELS = 6
SIZE = 128
#: Texels per side of the split-sum table.
LUT_SIZE = 32
#: GGX samples per texel when prefiltering (levels at full size, smaller levels), and per
#: entry of the table.
SAMPLES, SAMPLES_SMALL = 64, 256
LUT_SAMPLES = 128
#: Levels from this roughness on are convolved texel by texel: importance sampling a wide
#: lobe with a few hundred samples, each reading one coarse pyramid texel (up to 8 x 8 over
#: the sphere) at that texel's centre, is 12 to 20 % off a numerical integral of the same
#: radiance at roughness 0.8 and 1; summing the lobe over every texel of a 32 x 32 or
#: 64 x 64 copy of the room is within 2.5 %, for less than importance sampling the
#: sharpest level.
CONVOLVED_FROM = 0.4

# The room (units: three.js's; the centre of the environment is the origin).
_FLOOR_SHIFT = -3.5  # the whole room stands this far below the eye
_LAMP = (0.418, 16.199, 0.300)  # a point lamp: 900 cd, range 28
_LAMP_INTENSITY, _LAMP_RANGE = 900.0, 28.0
_ROOM = ((-0.757, 13.219, 0.717), 0.0, (31.713, 28.305, 28.591))  # centre, yaw, size
_BLOCKS = (
    ((-10.906, 2.009, 1.846), -0.195, (2.328, 7.905, 4.651)),
    ((-5.607, -0.754, -0.758), 0.994, (1.970, 1.534, 3.955)),
    ((6.167, 0.857, 7.803), 0.561, (3.927, 6.285, 3.687)),
    ((-2.017, 0.018, 6.124), 0.333, (2.002, 4.566, 2.064)),
    ((2.291, -0.756, -2.621), -0.286, (1.546, 1.552, 1.496)),
    ((-2.193, -0.369, -5.547), 0.516, (3.875, 3.487, 2.986)),
)
# Emissive panels: centre, size, radiance.
_PANELS = (
    ((-16.116, 14.37, 8.208), (0.1, 2.428, 2.739), 50.0),
    ((-16.109, 18.021, -8.207), (0.1, 2.425, 2.751), 50.0),
    ((14.904, 12.198, -1.832), (0.15, 4.265, 6.331), 17.0),
    ((-0.462, 8.89, 14.520), (4.38, 5.441, 0.088), 43.0),
    ((3.235, 11.486, -12.541), (2.5, 2.0, 0.1), 20.0),
    ((0.0, 20.0, 0.0), (1.0, 0.1, 1.0), 100.0),
)


@dataclass(frozen=True)
class EnvironmentMaps:
    """The environment as the shader takes it (linear radiance, float32)."""

    radiance: np.ndarray  # [LEVELS, SIZE, SIZE, 3], octahedral, by roughness
    irradiance_sh: np.ndarray  # [9, 3]: E(n) / pi = sum of c_k * Y_k(n)
    brdf_lut: np.ndarray  # [LUT_SIZE (roughness), LUT_SIZE (n.v), 2]: (scale, bias)


@cache
def environment_maps() -> EnvironmentMaps:
    """The room's maps, computed on first use (a few tenths of a second) and kept."""
    base = _room(2 * SIZE)
    levels = [_downsample(base)]
    pyramid = _pyramid(base)
    for k in range(1, LEVELS):
        roughness = k / (LEVELS - 1)
        if roughness < CONVOLVED_FROM:
            level = _prefilter(pyramid, roughness, SIZE >> k)
        else:
            level = _convolved_level(base, roughness)
        levels.append(_upsample(level, SIZE) if level.shape[0] < SIZE else level)
    return EnvironmentMaps(
        radiance=np.stack(levels).astype(np.float32),
        irradiance_sh=_irradiance_sh(levels[0]).astype(np.float32),
        brdf_lut=_brdf_lut(LUT_SIZE).astype(np.float32),
    )


# -- octahedral maps -----------------------------------------------------------------------
def octahedral_uv(d: np.ndarray) -> np.ndarray:
    """Texture coordinates in [0, 1]^2 of unit directions `d` [..., 3]: the upper
    hemisphere (+Y) is the centre diamond, the lower one folded into the corners."""
    p = d[..., [0, 2]] / np.abs(d).sum(axis=-1, keepdims=True)
    folded = (1.0 - np.abs(p[..., ::-1])) * np.where(p >= 0.0, 1.0, -1.0)
    p = np.where(d[..., 1:2] < 0.0, folded, p)
    return p * 0.5 + 0.5


def _texel_points(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per texel centre of a `size`^2 octahedral map: the point on the octahedron
    |x|+|y|+|z| = 1 [size, size, 3] (rows: v, columns: u)."""
    c = (np.arange(size) + 0.5) / size * 2.0 - 1.0
    px, pz = np.meshgrid(c, c)
    y = 1.0 - np.abs(px) - np.abs(pz)
    lower = y < 0.0
    fx = (1.0 - np.abs(pz)) * np.where(px >= 0.0, 1.0, -1.0)
    fz = (1.0 - np.abs(px)) * np.where(pz >= 0.0, 1.0, -1.0)
    q = np.stack([np.where(lower, fx, px), y, np.where(lower, fz, pz)], axis=-1)
    return q, lower


def _directions(size: int) -> np.ndarray:
    q, _ = _texel_points(size)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _solid_angles(size: int) -> np.ndarray:
    """Each texel's solid angle: (2 / size)^2 / |q|^3 for its point q on the octahedron."""
    q, _ = _texel_points(size)
    return (2.0 / size) ** 2 / np.linalg.norm(q, axis=-1) ** 3


def _lookup(image: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Nearest texel of octahedral `image` [s, s, 3] in directions `d` [..., 3]."""
    s = image.shape[0]
    uv = octahedral_uv(d)
    i = np.clip((uv * s).astype(np.int64), 0, s - 1)
    return image[i[..., 1], i[..., 0]]


def _downsample(image: np.ndarray) -> np.ndarray:
    s = image.shape[0] // 2
    return image.reshape(s, 2, s, 2, 3).mean(axis=(1, 3))


def _area_downsample(image: np.ndarray, size: int) -> np.ndarray:
    """`image` [s, s, 3] averaged down to `size`^2, each texel weighted by its solid angle
    (the octahedral map's texels differ by up to 5x), so that the light is kept."""
    s = image.shape[0]
    k = s // size
    w = _solid_angles(s)[..., None]
    blocks = (image * w).reshape(size, k, size, k, 3).sum(axis=(1, 3))
    return blocks / w.reshape(size, k, size, k, 1).sum(axis=(1, 3))


def _upsample(image: np.ndarray, size: int) -> np.ndarray:
    """Bilinear (texel centres), for levels smooth enough to be computed smaller."""
    s = image.shape[0]
    c = np.clip((np.arange(size) + 0.5) * s / size - 0.5, 0.0, s - 1.0)
    i0 = np.floor(c).astype(np.int64)
    i1, f = np.minimum(i0 + 1, s - 1), (c - i0)[:, None]
    rows = image[i0] * (1.0 - f[:, :, None]) + image[i1] * f[:, :, None]
    return rows[:, i0] * (1.0 - f[None]) + rows[:, i1] * f[None]


def _pyramid(base: np.ndarray) -> list[np.ndarray]:
    levels = [base]
    while levels[-1].shape[0] > 4:
        levels.append(_downsample(levels[-1]))
    return levels


# -- the room ------------------------------------------------------------------------------
def _room(size: int) -> np.ndarray:
    """The room's radiance on a `size`^2 octahedral map, one ray per texel."""
    radiance = room_radiance(_directions(size).reshape(-1, 3).astype(np.float32))
    return np.repeat(radiance.reshape(size, size, 1), 3, axis=2).astype(np.float64)


def _box_hits(d: np.ndarray, centre, yaw: float, size, normals: bool = True):
    """Ray from the origin along `d` [n, 3] against a box turned by `yaw` about +Y:
    (t_near, t_far, the unit normal at t_near [n, 3], at t_far [n, 3]), outward (no
    normals without `normals`)."""
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]], dtype=d.dtype)  # local -> world
    origin = (rot.T @ -(np.asarray(centre) + (0.0, _FLOOR_SHIFT, 0.0))).astype(d.dtype)
    local = d @ rot  # rot.T applied to each row
    half = np.asarray(size, dtype=d.dtype) * 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (-half - origin) / local
        t2 = (half - origin) / local
    lo, hi = np.minimum(t1, t2), np.maximum(t1, t2)
    if not normals:
        return lo.max(axis=1), hi.min(axis=1), None, None
    near_axis, far_axis = lo.argmax(axis=1), hi.argmin(axis=1)
    rows = np.arange(len(d))
    t_near, t_far = lo[rows, near_axis], hi[rows, far_axis]
    n_near = np.zeros_like(d)
    n_near[rows, near_axis] = -np.sign(local[rows, near_axis])
    n_far = np.zeros_like(d)
    n_far[rows, far_axis] = np.sign(local[rows, far_axis])
    return t_near, t_far, n_near @ rot.T, n_far @ rot.T


def _facing(d: np.ndarray, centre, size) -> np.ndarray:
    """Indices of the rays `d` that pass the box's bounding sphere (the only ones that
    can hit it: the blocks and panels cover a small part of the view)."""
    c = np.asarray(centre) + (0.0, _FLOOR_SHIFT, 0.0)
    r = 0.5 * float(np.linalg.norm(size))
    along = d @ c.astype(d.dtype)
    return np.flatnonzero((along > -r) & (float(c @ c) - along * along <= r * r))


def room_radiance(d: np.ndarray) -> np.ndarray:
    """Radiance seen from the room's centre along unit directions `d` [n, 3] (grey)."""
    _, best_t, _, outward = _box_hits(d, *_ROOM)  # seen from inside
    normal = -outward
    emitted = np.zeros(len(d))
    lit = np.ones(len(d), dtype=bool)
    for centre, yaw, size in _BLOCKS:
        rays = _facing(d, centre, size)
        t0, t1, n0, _ = _box_hits(d[rays], centre, yaw, size)
        hit = (t0 <= t1) & (t0 > 0.0) & (t0 < best_t[rays])
        best_t[rays[hit]], normal[rays[hit]] = t0[hit], n0[hit]
    for centre, size, radiance in _PANELS:
        rays = _facing(d, centre, size)
        t0, t1, _, _ = _box_hits(d[rays], centre, 0.0, size, normals=False)
        hit = (t0 <= t1) & (t0 > 0.0) & (t0 < best_t[rays])
        best_t[rays[hit]], emitted[rays[hit]], lit[rays[hit]] = t0[hit], radiance, False
    point = d * best_t[:, None]
    to_lamp = np.asarray(_LAMP) + (0.0, _FLOOR_SHIFT, 0.0) - point
    dist2 = np.einsum("ij,ij->i", to_lamp, to_lamp)
    cos = np.maximum(np.einsum("ij,ij->i", normal, to_lamp) / np.sqrt(dist2), 0.0)
    window = np.clip(1.0 - (dist2 / _LAMP_RANGE**2) ** 2, 0.0, 1.0) ** 2
    diffuse = _LAMP_INTENSITY * cos * window / np.maximum(dist2, 0.01) / np.pi  # white
    return np.where(lit, diffuse, emitted)


# -- prefiltering --------------------------------------------------------------------------
def _hammersley(n: int) -> np.ndarray:
    bits: npt.NDArray[np.integer] = np.arange(n, dtype=np.uint32)  # (uint32 throughout)
    bits = ((bits << 16) | (bits >> 16)) & 0xFFFFFFFF
    bits = ((bits & 0x55555555) << 1) | ((bits & 0xAAAAAAAA) >> 1)
    bits = ((bits & 0x33333333) << 2) | ((bits & 0xCCCCCCCC) >> 2)
    bits = ((bits & 0x0F0F0F0F) << 4) | ((bits & 0xF0F0F0F0) >> 4)
    bits = ((bits & 0x00FF00FF) << 8) | ((bits & 0xFF00FF00) >> 8)
    return np.stack([np.arange(n) / n, bits.astype(np.float64) / 2.0**32], axis=1)


def _ggx_half_vectors(alpha: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` GGX-distributed half vectors around +Z [n, 3] and D(h) of each."""
    u = _hammersley(n)
    phi = 2.0 * np.pi * u[:, 0]
    a2 = alpha * alpha
    cos_t = np.sqrt((1.0 - u[:, 1]) / (1.0 + (a2 - 1.0) * u[:, 1]))
    sin_t = np.sqrt(1.0 - cos_t**2)
    h = np.stack([sin_t * np.cos(phi), sin_t * np.sin(phi), cos_t], axis=1)
    d = a2 / (np.pi * (cos_t**2 * (a2 - 1.0) + 1.0) ** 2)
    return h, d


def _frames(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    up = np.where(np.abs(n[:, 2:3]) < 0.999, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    t = np.cross(up, n)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    return t, np.cross(n, t)


def _prefilter(pyramid: list[np.ndarray], roughness: float, size: int) -> np.ndarray:
    """The radiance convolved with the GGX lobe of `roughness` (n = v = r), each sample
    read from the pyramid level whose texels match its share of the lobe."""
    n = _directions(size).reshape(-1, 3)
    t, b = _frames(n)
    samples = SAMPLES if size >= SIZE else SAMPLES_SMALL
    h_local, d = _ggx_half_vectors(roughness * roughness, samples)
    h = (
        t[:, None] * h_local[None, :, :1]
        + b[:, None] * h_local[None, :, 1:2]
        + n[:, None] * h_local[None, :, 2:]
    )
    n_h = h_local[:, 2]
    light = 2.0 * n_h[None, :, None] * h - n[:, None]
    n_l = 2.0 * n_h**2 - 1.0
    weight = np.maximum(n_l, 0.0)
    # filtered importance sampling: pdf(l) = D / 4 with n = v
    texel = 4.0 * np.pi / pyramid[0].shape[0] ** 2
    sample = 1.0 / (samples * np.maximum(d, 1e-12) / 4.0)
    lod = np.clip(np.round(0.5 * np.log2(sample / texel) + 1.0), 0, len(pyramid) - 1)
    total = np.zeros((len(n), 3))
    for level in np.unique(lod[weight > 0]).astype(int):
        pick = np.flatnonzero((lod == level) & (weight > 0))
        total += np.einsum("pkc,k->pc", _lookup(pyramid[level], light[:, pick]), weight[pick])
    return (total / weight.sum()).reshape(size, size, 3)


def _convolved_level(base: np.ndarray, roughness: float) -> np.ndarray:
    """The level of `roughness` convolved from the room's map `base`, at 64 x 64 texels
    below roughness 0.5, 32 x 32 from there (the source as small as the level): texels a
    small part of the lobe, since bilinear reads of 16 x 16 are 5 % off the integral at
    roughness 0.8, of 32 x 32 4 % at 0.4."""
    size = 64 if roughness < 0.5 else 32
    return _convolve(_area_downsample(base, size), roughness, size)


def _convolve(source: np.ndarray, roughness: float, size: int) -> np.ndarray:
    """The radiance `source` [s, s, 3] convolved with the GGX lobe of `roughness` (n = v =
    r) at `size`^2 texels: the sum over every source texel l of L(l) D(h) (n.l) times its
    solid angle, over the same sum without L, which is what importance sampling with the
    pdf D(h) / 4 estimates. With n = v, (n.h)^2 = (1 + n.l) / 2."""
    s = source.shape[0]
    # float32: the sums of a few thousand positive terms keep 5 digits, at half the cost
    light = _directions(s).reshape(-1, 3).astype(np.float32)
    omega = _solid_angles(s).reshape(-1, 1)
    weighted = np.concatenate([source.reshape(-1, 3) * omega, omega], axis=1).astype(np.float32)
    n = _directions(size).reshape(-1, 3).astype(np.float32)
    a2 = roughness**4
    out = np.empty((len(n), 4))
    for rows in np.array_split(np.arange(len(n)), max(1, len(n) * len(light) // 2**21)):
        # n.l (by broadcasting: a product over 3 terms gains nothing from BLAS's threads,
        # which a busy machine slows), made D(h) (n.l) up to D's constant factor in place
        m = n[rows]
        lobe = m[:, :1] * light[:, 0] + m[:, 1:2] * light[:, 1] + m[:, 2:] * light[:, 2]
        den = lobe * np.float32(0.5 * (a2 - 1.0)) + np.float32(0.5 * (a2 - 1.0) + 1.0)
        den *= den
        np.maximum(lobe, 0.0, out=lobe)
        lobe /= den
        out[rows] = lobe @ weighted
    return (out[:, :3] / out[:, 3:]).reshape(size, size, 3)


def _irradiance_sh(radiance: np.ndarray) -> np.ndarray:
    """9 SH coefficients of the cosine-convolved radiance over pi (Ramamoorthi and
    Hanrahan 2001: bands scaled by pi, 2 pi / 3, pi / 4)."""
    size = radiance.shape[0]
    d = _directions(size).reshape(-1, 3)
    w = _solid_angles(size).reshape(-1)
    basis = sh_basis(d)
    coeffs = np.einsum("pk,p,pc->kc", basis, w, radiance.reshape(-1, 3))
    band = np.array([1.0] + [2.0 / 3.0] * 3 + [0.25] * 5)
    return coeffs * band[:, None]


def sh_basis(d: np.ndarray) -> np.ndarray:
    """The 9 real spherical harmonics of bands 0 to 2 at unit directions `d` [n, 3]
    (the shader's `sh_basis` is the same)."""
    x, y, z = d[:, 0], d[:, 1], d[:, 2]
    return np.stack(
        [
            np.full_like(x, 0.282095),
            0.488603 * y,
            0.488603 * z,
            0.488603 * x,
            1.092548 * x * y,
            1.092548 * y * z,
            0.315392 * (3.0 * z * z - 1.0),
            1.092548 * x * z,
            0.546274 * (x * x - y * y),
        ],
        axis=1,
    )


def _brdf_lut(size: int) -> np.ndarray:
    """Split-sum table: rows roughness, columns n.v (texel centres), (scale, bias)."""
    out = np.zeros((size, size, 2))
    n_v = (np.arange(size) + 0.5) / size
    v = np.stack([np.sqrt(1.0 - n_v**2), np.zeros(size), n_v], axis=1)
    for row in range(size):
        roughness = max((row + 0.5) / size, 0.02)
        a2 = roughness**4
        h, _ = _ggx_half_vectors(roughness * roughness, LUT_SAMPLES)
        v_h = v @ h.T  # [size, samples]
        n_l = 2.0 * v_h * h[None, :, 2] - n_v[:, None]
        n_h = h[None, :, 2]
        ok = n_l > 0.0
        n_lc = np.maximum(n_l, 1e-6)
        vis = 0.5 / (
            n_lc * np.sqrt(n_v[:, None] ** 2 * (1.0 - a2) + a2)
            + n_v[:, None] * np.sqrt(n_lc**2 * (1.0 - a2) + a2)
        )
        g = np.where(ok, vis * 4.0 * n_lc * np.maximum(v_h, 0.0) / n_h, 0.0)
        fc = (1.0 - np.clip(v_h, 0.0, 1.0)) ** 5
        out[row, :, 0] = ((1.0 - fc) * g).mean(axis=1)
        out[row, :, 1] = (fc * g).mean(axis=1)
    return out
