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
