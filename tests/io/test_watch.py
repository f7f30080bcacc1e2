"""SceneWatcher: reloads after a good save, reports a bad one, recovers on the next."""

import time
from pathlib import Path

import pytest

from viewer.io import SceneError, SceneWatcher, generate_scene, load_scene
from viewer.io.watch import watch_scene

GOOD = """[scene]
title = "{title}"

[[node]]
name = "A"
mesh = "cube"
"""


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def save(path: Path, text: str, clock: FakeClock) -> None:
    """Write the file and let the watcher's interval pass (mtime_ns may not move: size does)."""
    path.write_text(text)
    clock.t += 1.0


def look(watcher: SceneWatcher, clock: FakeClock):
    """The first look notes a change; the next one, `settle` later, reads it if it held."""
    assert watcher.poll() is None
    clock.t += watcher.settle
    return watcher.poll()


@pytest.fixture
def setup(tmp_path):
    path = tmp_path / "scene.toml"
    path.write_text(GOOD.format(title="one"))
    clock = FakeClock()
    return path, clock, SceneWatcher(path, clock=clock)


def test_nothing_changed_means_nothing_loaded(setup):
    path, clock, watcher = setup
    assert watcher.poll() is None
    clock.t += 5
    assert watcher.poll() is None


def test_a_good_save_loads_the_new_scene(setup):
    path, clock, watcher = setup
    save(path, GOOD.format(title="second version"), clock)
    scene = look(watcher, clock)
    assert scene.title == "second version" and "A" in scene.graph
    assert watcher.poll() is None  # once per save


def test_the_interval_limits_how_often_the_disk_is_read(setup):
    path, clock, watcher = setup
    path.write_text(GOOD.format(title="quick"))
    assert watcher.poll() is None  # interval not over yet
    clock.t += 0.3
    assert look(watcher, clock).title == "quick"


@pytest.mark.parametrize(
    "broken",
    [
        '[scene]\ntitle = "unterminated\n',  # a syntax error
        GOOD.format(title="x")[:25],  # a half-written (truncated) file
        '[[node]]\nname = "A"\nposition = [1, 2]\n',  # a field error
    ],
)
def test_a_bad_save_is_reported_and_the_next_good_one_recovers(setup, broken):
    path, clock, watcher = setup
    save(path, broken, clock)
    result = look(watcher, clock)
    assert isinstance(result, SceneError) and "scene.toml" in str(result)
    assert watcher.error is result
    save(path, GOOD.format(title="fixed"), clock)
    assert look(watcher, clock).title == "fixed" and watcher.error is None


def test_a_deleted_file_is_an_error_until_it_comes_back(setup):
    path, clock, watcher = setup
    path.unlink()
    clock.t += 1
    result = look(watcher, clock)
    assert isinstance(result, SceneError) and "deleted" in str(result)
    clock.t += 1
    assert watcher.poll() is None  # reported once, not every frame
    save(path, GOOD.format(title="back"), clock)
    assert look(watcher, clock).title == "back"


def test_a_save_between_loading_and_watching_is_not_missed(tmp_path):
    """The viewer loads the file, then opens its window, then starts watching: a save in
    between must still count (the watcher compares with the file as it was read)."""
    path = tmp_path / "scene.toml"
    path.write_text(GOOD.format(title="one"))
    scene = load_scene(path)
    path.write_text(GOOD.format(title="saved during start-up"))
    clock = FakeClock()
    watcher = SceneWatcher(path, clock=clock, seen=scene.source_stamp)
    clock.t += 1
    assert look(watcher, clock).title == "saved during start-up"


def test_watch_scene_reloads_with_the_same_limits(tmp_path):
    path = tmp_path / "scene.toml"
    path.write_text(GOOD.format(title="one"))
    scene = load_scene(path, max_nodes=1)
    watcher = watch_scene(scene, max_nodes=1)
    path.write_text(GOOD.format(title="two") + '\n[[node]]\nname = "B"\n')
    time.sleep(watcher.interval + 0.05)
    assert watcher.poll() is None
    time.sleep(watcher.settle + 0.05)
    result = watcher.poll()
    assert isinstance(result, SceneError) and "over the limit of 1" in str(result)
    assert watch_scene(generate_scene("chain:3")) is None  # nothing to watch


@pytest.mark.parametrize("written", ["", GOOD.format(title="half")[:30]])
def test_a_save_caught_midway_is_not_read_until_the_file_settles(setup, written):
    """An editor's save truncates the file, then writes it: a look in between sees an empty
    or half-written file, which must not be loaded (it would replace the scene with an
    empty one or report an error the user never saved)."""
    path, clock, watcher = setup
    path.write_text(written)
    clock.t += 1.0
    assert watcher.poll() is None  # caught midway: noted, not read
    path.write_text(GOOD.format(title="whole save"))
    clock.t += watcher.settle
    assert watcher.poll() is None  # changed again since the last look: not settled yet
    clock.t += watcher.settle
    assert watcher.poll().title == "whole save" and watcher.error is None
    clock.t += 5
    assert watcher.poll() is None


def test_a_read_the_file_changed_under_is_thrown_away(tmp_path):
    path = tmp_path / "scene.toml"
    path.write_text(GOOD.format(title="one"))
    clock = FakeClock()
    loads = []

    def load_while_saving(p):
        loads.append(p)
        if len(loads) == 1:  # the editor writes again while we read
            p.write_text(GOOD.format(title="final, longer title"))
        return load_scene(p)

    watcher = SceneWatcher(path, clock=clock, load=load_while_saving)
    path.write_text(GOOD.format(title="two"))
    clock.t += 1
    assert look(watcher, clock) is None  # read, but the file moved under it
    clock.t += watcher.interval
    assert look(watcher, clock).title == "final, longer title"
    assert len(loads) == 2
