"""viewer/render/environment.py against independent integrations: the octahedral map's
directions, the irradiance's spherical harmonics against a Monte Carlo integral of the
room's cosine-weighted radiance, the split-sum table against uniform hemisphere sampling,
and the prefiltered levels' energy."""

from __future__ import annotations

import numpy as np

from viewer.render import environment as env

RNG = np.random.default_rng(11)


def _unit(n: int) -> np.ndarray:
    d = RNG.normal(size=(n, 3))
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def test_octahedral_uv_places_each_direction_in_its_own_texel():
    d = _unit(2000)
    uv = env.octahedral_uv(d)
    assert uv.min() >= 0.0 and uv.max() <= 1.0
    # the texel centre a direction falls in points (nearly) the same way
    size = 256
    centres = env._directions(size)
    i = np.clip((uv * size).astype(int), 0, size - 1)
    back = centres[i[:, 1], i[:, 0]]
    assert np.degrees(np.arccos(np.clip((back * d).sum(1), -1, 1))).max() < 1.0
    assert np.isclose(env._solid_angles(64).sum(), 4.0 * np.pi, rtol=1e-6)


def test_irradiance_harmonics_match_a_monte_carlo_integral_of_the_room():
    maps = env.environment_maps()
    samples = _unit(300_000)
    radiance = env.room_radiance(samples)
    # the coefficients: the radiance projected on each harmonic (4 pi times the mean over
    # uniform directions), convolved with the cosine lobe (pi, 2 pi / 3, pi / 4) over pi
    band = np.array([1.0] + [2.0 / 3.0] * 3 + [0.25] * 5)
    projected = 4.0 * np.pi * (env.sh_basis(samples) * radiance[:, None]).mean(0) * band
    assert np.abs(maps.irradiance_sh[:, 0] - projected).max() < 0.03 * projected[0]
    for n in np.array([[0, 1, 0], [0, -1, 0], [1, 0, 0], [0, 0.6, 0.8], [-0.6, 0, -0.8]]):
        # E(n) / pi = (1 / pi) * integral of L(l) max(n.l, 0) dl, over the sphere: 4 pi mean
        want = 4.0 * (radiance * np.maximum(samples @ n, 0.0)).mean()
        got = (env.sh_basis(n[None].astype(float)) @ maps.irradiance_sh[:, 0])[0]
        # 9 harmonics keep the low frequencies: within 15 % in a room lit by small panels
        assert abs(got - want) < 0.15 * want, (n, got, want)


def test_the_split_sum_table_matches_uniform_hemisphere_sampling():
    lut = env.environment_maps().brdf_lut
    size = lut.shape[0]
    for row, col in [(10, 28), (16, 16), (28, 8), (31, 31)]:  # (sharp lobes: too noisy)
        roughness, n_v = (row + 0.5) / size, (col + 0.5) / size
        a2 = roughness**4
        v = np.array([np.sqrt(1 - n_v * n_v), 0.0, n_v])
        u = RNG.random((400_000, 2))
        z, phi = u[:, 0], 2 * np.pi * u[:, 1]
        s = np.sqrt(1 - z * z)
        light = np.stack([s * np.cos(phi), s * np.sin(phi), z], 1)  # pdf 1 / (2 pi)
        h = light + v
        h /= np.linalg.norm(h, axis=1, keepdims=True)
        d = a2 / (np.pi * (h[:, 2] ** 2 * (a2 - 1) + 1) ** 2)
        vis = 0.5 / (z * np.sqrt(n_v**2 * (1 - a2) + a2) + n_v * np.sqrt(z * z * (1 - a2) + a2))
        f = d * vis * z * 2 * np.pi
        fc = (1 - h @ v) ** 5
        want = np.array([(f * (1 - fc)).mean(), (f * fc).mean()])
        assert np.allclose(lut[row, col], want, atol=0.03), (row, col, lut[row, col], want)


def test_prefiltering_keeps_the_light_and_sharp_level_is_the_room():
    maps = env.environment_maps()
    w = env._solid_angles(env.SIZE)
    totals = [(level[..., 0] * w).sum() for level in maps.radiance]
    assert np.allclose(totals, totals[0], rtol=0.1), totals  # blurring moves light, keeps it
    d = env._directions(env.SIZE)
    sharp = env.room_radiance(d.reshape(-1, 3)).reshape(env.SIZE, env.SIZE)
    walls = sharp < 5.0  # away from the panels' edges
    assert np.median(np.abs(maps.radiance[0][..., 0] - sharp)[walls]) < 0.05
    # rough levels are smooth: no texel far from its neighbours' mean
    rough = maps.radiance[-1][..., 0]
    assert np.abs(np.diff(rough, axis=0)).max() < 0.2 * rough.mean()


def _jittered_sphere(per_side: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Directions over the sphere, one uniformly placed in each cell of a cube's faces
    (`per_side`^2 a face, the cube turned at random so that its rows do not line up with
    the room's walls), and each cell's solid angle (a stratified quadrature: a bright
    panel's edge adds noise, not the bias of a regular grid)."""
    i, j = np.meshgrid(np.arange(per_side), np.arange(per_side))
    centre_a, centre_b = [(k.ravel() + 0.5) / per_side * 2 - 1 for k in (i, j)]
    omega = (2.0 / per_side) ** 2 / (1 + centre_a**2 + centre_b**2) ** 1.5
    dirs = []
    for axis in range(3):
        for sign in (1.0, -1.0):
            p = np.empty((per_side * per_side, 3))
            p[:, axis] = sign
            p[:, (axis + 1) % 3] = (i.ravel() + rng.random(i.size)) / per_side * 2 - 1
            p[:, (axis + 2) % 3] = (j.ravel() + rng.random(j.size)) / per_side * 2 - 1
            dirs.append(p / np.linalg.norm(p, axis=1, keepdims=True))
    turn, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return np.concatenate(dirs) @ turn, np.tile(omega, 6)


def _ggx_integral(light, omega, radiance, n, roughness):
    """The prefiltered radiance by its definition (n = v = r): the integral of L(l) D(h)
    (n.l) over the sphere divided by that of D(h) (n.l), h the half vector of l and n."""
    a2 = roughness**4
    h = light + n
    h /= np.linalg.norm(h, axis=1, keepdims=True)
    d = a2 / (np.pi * ((h @ n) ** 2 * (a2 - 1) + 1) ** 2)
    w = d * np.maximum(light @ n, 0.0) * omega
    return (w * radiance).sum() / w.sum()


def _bilinear(level: np.ndarray, d: np.ndarray) -> np.ndarray:
    """A level read as the GPU reads it: bilinear between texel centres, clamped at the edge."""
    s = level.shape[0]
    uv = env.octahedral_uv(d) * s - 0.5
    i0 = np.floor(uv).astype(int)
    f = uv - i0

    def at(du, dv):
        return level[np.clip(i0[:, 1] + dv, 0, s - 1), np.clip(i0[:, 0] + du, 0, s - 1)]

    fu, fv = f[:, :1], f[:, 1:]
    top = at(0, 0) * (1 - fu) + at(1, 0) * fu
    return top * (1 - fv) + (at(0, 1) * (1 - fu) + at(1, 1) * fu) * fv


def test_rough_levels_match_a_numerical_ggx_integral_of_their_source():
    # the source: the room's radiance map that the levels are made from, read at the
    # nearest texel (so the integral is the map's own, aliasing of its small bright panels
    # included: at roughness 0.4 towards the ceiling lamp the map holds 8 % more light
    # than the room's ray-cast radiance); the quadrature: jittered directions over a cube
    base = env._room(2 * env.SIZE)[..., 0]
    light, omega = _jittered_sphere(256, np.random.default_rng(5))
    texel = np.clip((env.octahedral_uv(light) * base.shape[0]).astype(int), 0, base.shape[0] - 1)
    radiance = base[texel[:, 1], texel[:, 0]]
    dirs = np.concatenate(
        [
            np.eye(3),
            -np.eye(3),
            [[0.24, -0.19, 0.95], [-0.25, -0.93, 0.27], [0.48, 0.48, 0.73], [-0.69, -0.23, 0.69]],
            _unit(6),
        ]
    )
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    maps = env.environment_maps()
    # a roughness between two stored levels, made as the stored ones are
    between = env._convolved_level(env._room(2 * env.SIZE), 0.5)
    for roughness, level in [(0.4, maps.radiance[2]), (0.5, between), (0.6, maps.radiance[3]),
                             (0.8, maps.radiance[4]), (1.0, maps.radiance[5])]:  # fmt: skip
        got = _bilinear(level, dirs)[:, 0]
        want = np.array([_ggx_integral(light, omega, radiance, n, roughness) for n in dirs])
        # within 5 %: the quadrature's noise is under 1.5 % at these lobes (against a regular
        # 600 x 600 a face grid), bilinear reads of the 32 x 32 (64 x 64 at 0.4) levels under
        # 4 %; a prefilter reading too coarse a level for wide lobes is 12 to 20 % off
        assert np.allclose(got, want, rtol=0.05), (roughness, got / want)
