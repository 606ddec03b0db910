#!/usr/bin/env python3
"""Draws a ferry Chrome trace (`ferry run overlap --trace`) as an SVG timeline:
one lane per stream, one box per copy or kernel, coloured by category.
Standard library only, so it runs wherever ferry's tests do.
Usage: scripts/trace-svg.py TRACE.json OUT.svg"""
import json
import sys
from xml.sax.saxutils import escape

COLOURS = {"H2D": "#4e79a7", "kernel": "#59a14f", "D2H": "#e15759"}
LANE_HEIGHT, LANE_GAP, LEFT, TOP, WIDTH = 26, 8, 90, 40, 1100


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: trace-svg.py TRACE.json OUT.svg")
    try:
        with open(argv[1]) as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"trace-svg: {argv[1]} is not a Chrome trace: {e}")
    lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    title = next((e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"), "")
    boxes = [e for e in events if e.get("ph") == "X"]
    if not boxes:
        sys.exit(f"trace-svg: {argv[1]} has no boxes")
    end_us = max(b["ts"] + b["dur"] for b in boxes)
    scale = (WIDTH - LEFT - 20) / end_us
    height = TOP + len(lanes) * (LANE_HEIGHT + LANE_GAP) + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           f'<text x="{LEFT}" y="20">{escape(title)}: {end_us / 1000:.2f} ms</text>']
    for tid, name in sorted(lanes.items()):
        y = TOP + tid * (LANE_HEIGHT + LANE_GAP)
        out.append(f'<text x="5" y="{y + LANE_HEIGHT * 0.7:.1f}">{escape(name)}</text>')
    for b in boxes:
        y = TOP + b["tid"] * (LANE_HEIGHT + LANE_GAP)
        x, w = LEFT + b["ts"] * scale, max(b["dur"] * scale, 0.5)
        colour = COLOURS.get(b.get("cat"), "#999999")
        out.append(f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{LANE_HEIGHT}" fill="{colour}" stroke="white" '
                   f'stroke-width="0.3"><title>{escape(b["name"])}: {b["dur"]:.1f} us</title></rect>')
    axis_y = TOP + len(lanes) * (LANE_HEIGHT + LANE_GAP) + 5
    for i in range(11):
        x = LEFT + i * (WIDTH - LEFT - 20) / 10
        out.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 5}" stroke="black"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 18}" text-anchor="middle">{end_us * i / 10000:.1f} ms</text>')
    legend_x = WIDTH - 260
    for i, (cat, colour) in enumerate(COLOURS.items()):
        out.append(f'<rect x="{legend_x + i * 80}" y="8" width="14" height="14" fill="{colour}"/>')
        out.append(f'<text x="{legend_x + i * 80 + 18}" y="20">{cat}</text>')
    out.append("</svg>")
    with open(argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv)
