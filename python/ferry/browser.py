"""Headless Chromium, to see a report as a reader would: a screenshot, the DOM the
browser built, and anything the page logged to its console."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import output

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT_S = 120


class BrowserError(Exception):
    pass


@dataclass(frozen=True)
class Rendered:
    dom: str
    console: list            # every message the page logged; a report logs none
    screenshot: Optional[Path]
    clipped: bool            # the page was taller than the screenshot


def find() -> Optional[str]:
    override = os.environ.get("FERRY_CHROMIUM")
    if override:
        return override if shutil.which(override) else None
    return next((path for path in map(shutil.which, CANDIDATES) if path), None)


def render(page: Path, screenshot: Optional[Path] = None, width: int = 1480, height: int = 12000) -> Rendered:
    """Opens page twice (once to dump the DOM, once to take the screenshot), with the
    network resolved to nowhere, so a page that needs anything from outside shows it."""
    chromium = find()
    if chromium is None:
        raise BrowserError("no headless Chromium found (tried " + ", ".join(CANDIDATES) +
                           "; set FERRY_CHROMIUM, or apt-get install chromium)")
    url = Path(page).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="ferry-chromium-") as profile:
        # No sandbox: Chromium refuses it as root and containers often lack the kernel
        # features it needs. The page is ferry's own, has no script and reaches no network.
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND",
                "--disable-background-networking", "--disable-component-update", "--no-first-run"]
        dom = _run(base + ["--dump-dom", url]).stdout
        console, clipped = [], False
        if screenshot is not None:
            # Taken and cropped here, then written by output.py's rules (a link, a pipe, - for standard output).
            shot = Path(profile) / "screenshot.png"
            done = _run(base + ["--enable-logging=stderr", "--v=0", f"--window-size={width},{height}",
                                f"--screenshot={shot}", url])
            console = [line.split("CONSOLE", 1)[1] for line in done.stderr.splitlines() if ":CONSOLE" in line]
            if not shot.exists():
                raise BrowserError(f"Chromium wrote no screenshot of '{page}': {done.stderr[-400:]}")
            clipped = _crop_to_content(shot)
            try:
                output.write(str(screenshot), shot.read_bytes())
            except OSError as e:
                raise BrowserError(f"cannot write '{screenshot}': {e.strerror or e}{output.links_to(str(screenshot))}") \
                    from None
    return Rendered(dom=dom, console=console, screenshot=Path(screenshot) if screenshot else None, clipped=clipped)


def _run(command: list) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise BrowserError(f"Chromium did not finish within {TIMEOUT_S} s: {' '.join(command[:2])} ...") from None
    if done.returncode != 0:
        raise BrowserError(f"Chromium exited with {done.returncode}: {done.stderr[-400:]}")
    return done


def _crop_to_content(png: Path) -> bool:
    """Cuts the empty window below the page and stores the picture in 256 colours
    (a third of the bytes; plots and text lose nothing visible). Returns True when the
    page reached the window's bottom edge, i.e. it may go on below what was captured."""
    from PIL import Image, ImageChops  # Pillow comes with matplotlib

    with Image.open(png) as image:
        rgb = image.convert("RGB")
    background = rgb.getpixel((rgb.width - 1, rgb.height - 1))
    box = ImageChops.difference(rgb, Image.new("RGB", rgb.size, background)).getbbox()
    if box is None:
        return False
    bottom = min(rgb.height, box[3] + 24)
    rgb.crop((0, 0, rgb.width, bottom)).quantize(colors=256).save(png, optimize=True)
    return box[3] >= rgb.height - 1
