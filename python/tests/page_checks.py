"""What the report tests look for in a page, read with the standard library's HTML parser."""
from __future__ import annotations

import re
from html.parser import HTMLParser

# Every section and plot the emulator's results must produce, by element id.
EXPECTED = {
    "machine": "table",
    "workload-link": "section", "plot-link-bandwidth": "figure", "plot-link-latency": "figure",
    "table-link-ceilings": "table",
    "workload-stream": "section", "plot-stream-latency-throughput": "figure", "table-stream-summary": "table",
    "workload-overlap": "section", "plot-overlap-splits": "figure", "table-overlap-variants": "table",
    "workload-dispatch": "section", "plot-dispatch-ladder": "figure", "plot-dispatch-sweep": "figure",
    "table-dispatch-summary": "table",
    "workload-beff": "section", "plot-beff-bandwidth": "figure", "table-beff-transports": "table",
    "table-beff-latency": "table",
    "workload-topo": "section", "plot-topo-bandwidth": "figure", "table-topo-peaks": "table",
    "plot-topo-matrix": "figure",
}


class Page(HTMLParser):
    """Element ids with their tags, what each figure holds, and every attribute that could fetch something."""

    def __init__(self, text: str):
        super().__init__()
        self.ids = {}
        self.figure_contents = {}   # figure id -> count of SVG drawing elements inside
        self.fetches = []           # src/href/url() values that are not in-page
        self.texts = []
        self._figure = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids[attrs["id"]] = tag
        if tag == "figure":
            self._figure = attrs.get("id")
            self.figure_contents[self._figure] = 0
        elif self._figure and tag in ("path", "use", "rect", "polyline", "line"):
            self.figure_contents[self._figure] += 1
        for name in ("src", "href", "xlink:href", "data", "poster"):
            value = attrs.get(name)
            if value is not None and not value.startswith("#") and not value.startswith("data:"):
                self.fetches.append(f"{tag} {name}={value}")
        self.fetches += [f"{tag} style url({u})" for u in re.findall(r"url\(([^)]*)\)", attrs.get("style", "") or "")
                         if not u.strip("'\"").startswith("#")]

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure = None

    def handle_data(self, data):
        if data.strip():
            self.texts.append(data.strip())


def css_fetches(text: str) -> list:
    """url(...), @import in <style> blocks: a self-contained page has none but in-page references."""
    styles = " ".join(re.findall(r"<style[^>]*>(.*?)</style>", text, flags=re.S))
    return [u for u in re.findall(r"url\(([^)]*)\)", styles) if not u.strip("'\"").startswith("#")] + \
        re.findall(r"@import[^;]*", styles)
