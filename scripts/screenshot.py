"""Screenshots of the verdict comment as a reader sees it (docs/screenshots/*.png).

Renders each scenario's comment with a GFM renderer (markdown-it-py: CommonMark + tables, raw
HTML allowed as on GitHub for <details>), wraps it in GitHub-like CSS and photographs it with
headless Chromium (with a colour emoji font installed, e.g. Debian's fonts-noto-color-emoji, or
the verdict's ✅ shows as a box). A script, not a test: CI has no browser.

    PYTHONPATH=. python scripts/screenshot.py [--chromium /usr/bin/chromium] [--keep-html]
"""

from __future__ import annotations

import argparse
import html
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from markdown_it import MarkdownIt  # noqa: E402

from evalbot.report.render import render_comment  # noqa: E402
from tests.golden.scenarios import MARKER, SCENARIOS, STATE  # noqa: E402

SHOTS = {
    # name: (scenario, the <details> shown open (by its summary), window height)
    "improvement": ("improvement", "Why this verdict", 1180),
    "regression": ("regression", "Broken items", 2200),
    "inconclusive": ("inconclusive", None, 870),
}

CSS = """
body { margin: 0; background: #fff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
.comment { width: 820px; margin: 16px; border: 1px solid #d1d9e0; border-radius: 6px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
  border-radius: 6px 6px 0 0; color: #59636e; }
.head b { color: #1f2328; }
.body { padding: 16px; }
h3 { font-size: 1.25em; margin: 0 0 12px; }
table { border-collapse: collapse; margin: 0 0 16px; }
th, td { border: 1px solid #d1d9e0; padding: 4px 12px; }
tr:nth-child(2n) td { background: #f6f8fa; }
pre { background: #f6f8fa; border-radius: 6px; padding: 12px 16px; overflow: auto;
  font: 13px/1.45 "DejaVu Sans Mono", ui-monospace, SFMono-Regular, Menlo, monospace; }
code { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 85%; }
details { margin: 0 0 12px; } summary { cursor: pointer; }
blockquote { margin: 0 0 16px; padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
sub { color: #59636e; }
a { color: #0969da; text-decoration: none; }
ul { padding-left: 2em; margin: 0 0 16px; }
p { margin: 0 0 12px; }
"""


def page(markdown: str, *, shown: str | None) -> str:
    body = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    if shown:
        body = body.replace(f"<details><summary>{shown}", f"<details open><summary>{shown}", 1)
    return (
        "<!doctype html><meta charset='utf-8'><style>" + CSS + "</style>"
        "<div class='comment'><div class='head'><b>github-actions</b> bot commented "
        f"</div><div class='body'>{body}</div></div>"
        f"<!-- source length {html.escape(str(len(markdown)))} -->"
    )


def shoot(chromium: str, html_path: Path, png: Path, height: int) -> None:
    profile = tempfile.mkdtemp(prefix="evalbot-chromium-")
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--screenshot={png}",
            f"--window-size=900,{height}",
            html_path.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--keep-html", action="store_true", help="write the .html beside")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (scenario, shown, height) in SHOTS.items():
            view = SCENARIOS[scenario]().view()
            markdown = render_comment(view, marker=MARKER, state_block=STATE)
            folder = args.out if args.keep_html else Path(tmp)
            html_path = folder / f"{name}.html"
            html_path.write_text(page(markdown, shown=shown), encoding="utf-8")
            png = args.out / f"{name}.png"
            shoot(args.chromium, html_path, png, height)
            print(f"wrote {png.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
