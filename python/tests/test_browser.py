"""The report as a reader sees it: headless Chromium (Debian's package) opens it, the
DOM it builds holds every section and plot, the screenshot is a real picture, and the
page logs nothing. Control pages show each check can fail."""
from __future__ import annotations

import os

import pytest
from conftest import document, row, run_ferry_py
from page_checks import EXPECTED, Page

from ferry.browser import find, render


@pytest.fixture(scope="module")
def chromium():
    if find() is None:
        pytest.fail("headless Chromium is needed for these tests: apt-get install chromium (scripts/test.sh does)")


def screenshot_folder(tmp_path):
    """CI can keep the screenshots by setting FERRY_SCREENSHOTS to a folder."""
    kept = os.environ.get("FERRY_SCREENSHOTS")
    return tmp_path if not kept else __import__("pathlib").Path(kept)


def test_chromium_renders_every_section_and_plot_and_logs_nothing(chromium, emulator_results, tmp_path):
    page = tmp_path / "report.html"
    shot = screenshot_folder(tmp_path) / "report-emulator.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    done = run_ferry_py("report", *emulator_results.values(), "-o", page, "--screenshot", shot)
    assert done.returncode == 0, done.stderr
    # The screenshot's Chromium saw the page's console: ferry report names every message it logged.
    assert "the page logged" not in done.stderr and "ferry report: screenshot" in done.stdout

    # The DOM alone: a second screenshot of the same page would take the longest of Chromium's runs again.
    dom = Page(render(page).dom)
    missing = {i: tag for i, tag in EXPECTED.items() if dom.ids.get(i) != tag}
    assert not missing, f"Chromium's DOM lacks {missing}"
    assert all(n >= 20 for n in dom.figure_contents.values()), dom.figure_contents

    from PIL import Image
    with Image.open(shot) as image:
        width, height = image.size
        grey = image.convert("L")
        inked = sum(count for level, count in enumerate(grey.histogram()) if level < 200) / (width * height)
        coloured = len({c for _, c in image.convert("RGB").getcolors(maxcolors=1 << 20)})
    assert width == 1480 and height > 2000, (width, height)   # the whole page, not one window's worth
    assert inked > 0.02 and coloured > 16, (inked, coloured)    # text and coloured plots, not a blank page


def test_the_console_check_sees_a_page_that_logs_an_error(chromium, tmp_path):
    control = tmp_path / "control.html"
    control.write_text("<!DOCTYPE html><html><body><p>x</p><script>noSuchFunction();</script></body></html>")
    rendered = render(control, tmp_path / "control.png")
    assert any("noSuchFunction" in message for message in rendered.console)


def test_the_fetch_check_sees_a_page_that_loads_from_outside():
    page = Page('<img src="https://example.com/a.png"><svg><image xlink:href="plot.png"/></svg>'
                '<div style="background: url(x.png)"></div>')
    assert len(page.fetches) == 3


def test_ferry_report_names_every_message_the_page_logged(make_results, tmp_path, monkeypatch, capsys):
    # What the first test reads from ferry report's output in place of a console of its own.
    from ferry import __main__, browser

    def logging_render(page, screenshot=None):
        return browser.Rendered(dom="", console=[" Uncaught ReferenceError: noSuchFunction"], screenshot=screenshot,
                                clipped=False)

    monkeypatch.setattr(browser, "render", logging_render)
    results = make_results("r.json", document("teleport", rows=[row(section="ring", value=42.5, bytes=1024)]))
    code = __main__.report_main([str(results), "-o", str(tmp_path / "r.html"), "--screenshot", str(tmp_path / "r.png")])
    assert code == 0 and "ferry report: the page logged Uncaught ReferenceError" in capsys.readouterr().err
