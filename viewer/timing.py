"""The headless clock: exactly 1/60 s per frame, so headless runs are reproducible."""

from __future__ import annotations

from moderngl_window.timers.base import BaseTimer

#: Frames per second of headless runs and recordings; headless runs step time by 1/FPS.
FPS = 60


class FixedTimer(BaseTimer):
    """A clock that advances exactly 1/FPS s per frame: headless runs are reproducible."""

    def __init__(self, step: float = 1.0 / FPS):
        self.step = step
        self.frame = 0
        self._running = False

    @property
    def is_paused(self) -> bool:
        return False

    @property
    def is_running(self) -> bool:
        return self._running

    @property
    def time(self) -> float:
        return self.frame * self.step

    @time.setter
    def time(self, value: float) -> None:
        self.frame = round(value / self.step)

    @property
    def fps(self) -> float:
        return 1.0 / self.step

    @property
    def fps_average(self) -> float:
        return 1.0 / self.step

    def next_frame(self) -> tuple[float, float]:
        self.frame += 1
        return self.time, self.step

    def start(self) -> None:
        self._running = True

    def pause(self) -> None:
        pass

    def toggle_pause(self) -> None:
        pass

    def stop(self) -> tuple[float, float]:
        self._running = False
        return self.time, self.time
