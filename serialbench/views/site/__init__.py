"""`serialbench html`: a static site of result files, that opens from file:// with no server and no network.

One page per result (a run, a compare's two sides, a sweep with its side files, a bisection, a
check-harness panel) and an index of them all. Each page is one HTML file that carries only its own
data, as JSON inside a `<script type="application/json">` element (file:// forbids fetch), and loads
the site's scripts from `assets/`: plotly.js, shipped in the wheel (assets/README.md says which
build and why), and `site.js`, which lays the page out. The URL hash holds the view (input,
direction, implementations, benchmark), so a copied link reproduces it.

Result files are untrusted input (a fork's CI may have made them): every string from them is data in
that JSON, escaped so that it cannot close the element, and site.js writes it with textContent, never
as markup; the page's Content-Security-Policy lets no inline script run and no request leave.
"""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.results.files import differing_versions
from serialbench.results.sources import Source, collect
from serialbench.views.site.history import history_page
from serialbench.views.site.pages import PAGES, commits_of
from serialbench.views.table import Table, column
from serialbench.views.table import data as data_of

ASSETS = Path(__file__).with_name("assets")
SHIPPED = ("plotly-basic.min.js", "plotly-LICENSE.txt", "site.js", "site.css")
PLOTLY = ("4.1.1", "99784e3abfb07b142a15e521a439e6d9addceadb3f79553fd24c72774f0649ba")  # assets/README.md
# No request leaves a page; scripts only from the site's own files (the JSON data is not executed).
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "font-src 'self'; connect-src 'none'; form-action 'none'; base-uri 'none'")
BUILDERS = {"history": history_page, **PAGES}  # in the order of the index


@dataclass
class Page:
    kind: str
    file: str  # the HTML file's name inside the site
    title: str
    source: Source
    facts: dict = field(default_factory=dict)  # the index's row: its date, libraries, machine and count


def build_site(inputs: Sequence[str], out: Path, say: Callable[[str], None]) -> list[Page]:
    """Write the site of `inputs` into `out` (which exists); the pages written, the index first."""
    sources = collect(inputs, say)
    pages, used = [], {"index"}
    for source in sources:
        stem = f"{source.kind}-{source.stem}" if not source.stem.startswith(source.kind) else source.stem
        name, counter = stem, 2
        while name in used:
            name, counter = f"{stem}-{counter}", counter + 1
        used.add(name)
        pages.append(Page(source.kind, f"{name}.html", _title(source), source))
    written = []
    pages.sort(key=lambda page: list(BUILDERS).index(page.kind))  # stable: the order found within a kind
    for page in pages:
        try:
            data = BUILDERS[page.kind](page.source)
        except (KeyError, TypeError, ValueError, ZeroDivisionError, UsageError) as exc:
            say(f"left out: {', '.join(page.source.paths)}: cannot be shown ({type(exc).__name__}: {exc})")
            continue
        page.facts = data.pop("index")  # the index's, not the page's
        write_page(out / page.file, page.kind, {**data, "title": page.title})
        written.append(page)
    index = {"kind": "index", "title": "serialbench results",
             "legend": f"{len(written)} results. A page per result: a run's times against tier, a compare's "
                       "verdicts, a sweep's releases, a bisection's sessions.",
             "table": data_of(Table.of(INDEX_COLUMNS, index_rows(written)))}
    write_page(out / "index.html", "index", index)
    copy_assets(out / "assets")
    return written


def _title(source: Source) -> str:
    if source.kind == "history":
        return f"history: {len(source.paths)} runs, {len({c for f in source.files for c in f.commits})} commits"
    return f"{source.kind}: {Path(source.paths[0]).name}"


def embed(data: dict) -> str:
    """JSON that cannot end its <script> element or start markup: <, >, & and the two JavaScript line
    terminators as \\u escapes (JSON.parse reads them back)."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def write_page(path: Path, kind: str, data: dict) -> None:
    """The page of `kind` (its script's layout), titled by its data's `title`, which it carries."""
    path.write_text(f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(data["title"])}</title>
<link rel="stylesheet" href="assets/site.css">
</head>
<body data-page="{kind}">
<header><a href="index.html">serialbench results</a><h1 id="title"></h1></header>
<main id="main"><noscript>This page draws its tables and charts with JavaScript.</noscript></main>
<script type="application/json" id="page-data">{embed(data)}</script>
<script src="assets/plotly-basic.min.js"></script>
<script src="assets/site.js"></script>
</body>
</html>
""", encoding="utf-8")


def copy_assets(target: Path) -> None:
    target.mkdir(exist_ok=True)
    for name in SHIPPED:
        shutil.copyfile(ASSETS / name, target / name)


INDEX_COLUMNS = [column(key, header, lambda row, key=key: str(row[key]) if key == "count" else row[key] or "-",
                        lambda row, key=key: row[key],
                        left=key != "count")
                 for key, header in (("kind", "kind"), ("title", "result"), ("date", "date"), ("commit", "commit"),
                                     ("libraries", "libraries that differ"), ("machine", "machine"),
                                     ("count", "benchmarks"))] + [column("href", "", None, lambda row: row["href"])]


def index_rows(pages: Sequence[Page]) -> list[dict]:
    """A row a page: what its builder said of it (`facts`), its commits, and for a run the libraries whose
    version differs between the site's runs."""
    runs = [page for page in pages if page.kind == "run"]
    differing = dict(zip((page.file for page in runs), differing_versions([page.source.files[0] for page in runs])))
    return [{"kind": page.kind, "title": page.title, "href": page.file, "commit": commits_of(page.source.files),
             "date": "", "libraries": differing.get(page.file, ""), "machine": "", **page.facts} for page in pages]
