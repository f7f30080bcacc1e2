"""A JupyterLab server for one test or benchmark: 127.0.0.1, a free port, a random token, a
temporary root folder and its own config and runtime folders (the user's settings stay
out); and Debian's chromium for Playwright to drive (never a browser it downloads)."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

#: Debian's chromium: .ci/run installs it.
CHROMIUM = Path("/usr/bin/chromium")
#: Root in a container: no sandbox; a small /dev/shm; no GPU.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def launch_chromium(playwright):
    """Headless chromium through Playwright's sync API."""
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def jupyter_lab(root: Path, timeout: float = 60.0):
    """Run JupyterLab on `root`; yields the base URL (with ``?token=`` to append)."""
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(root / ".config"),
        JUPYTER_RUNTIME_DIR=str(root / ".runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(root / ".lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(root / ".lab-workspaces"),
    )
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--ServerApp.allow_root=True",  # CI containers run as root
    ]  # fmt: skip
    log = open(root / "lab.log", "wb")  # noqa: SIM115 - closed below, after the server
    server = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(root / 'lab.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not answer in time") from None
                time.sleep(0.2)
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
