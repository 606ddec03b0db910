"""The page's building blocks. Every string that came from a results file is escaped here."""
from __future__ import annotations

from html import escape


def figure(plot_id: str, svg: str, caption: str) -> str:
    return (f'<figure class="plot" id="{escape(plot_id)}">{svg}'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def table(header: list, rows: list, table_id: str = "", cls: str = "") -> str:
    """Cells are plain text (escaped), except a cell given as ('failed', text), which is flagged."""
    def cell(c, tag):
        if isinstance(c, tuple):
            return f'<{tag} class="{escape(c[0])}">{escape(str(c[1]))}</{tag}>'
        return f"<{tag}>{escape(str(c))}</{tag}>"

    head = "".join(cell(h, "th") for h in header)
    body = "".join("<tr>" + "".join(cell(c, "td") for c in r) + "</tr>" for r in rows)
    attrs = (f' id="{escape(table_id)}"' if table_id else "") + (f' class="{escape(cls)}"' if cls else "")
    return f"<table{attrs}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def paragraph(text: str, cls: str = "") -> str:
    attrs = f' class="{escape(cls)}"' if cls else ""
    return f"<p{attrs}>{escape(text)}</p>"


def items(texts: list, cls: str = "") -> str:
    if not texts:
        return ""
    attrs = f' class="{escape(cls)}"' if cls else ""
    return f"<ul{attrs}>" + "".join(f"<li>{escape(t)}</li>" for t in texts) + "</ul>"


def section(workload: str, title: str, parts: list) -> str:
    return (f'<section class="workload" id="workload-{escape(workload)}">'
            f"<h2>{escape(title)}</h2>" + "".join(parts) + "</section>")
