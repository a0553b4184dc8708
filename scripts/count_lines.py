"""Count the product's code lines: the lines holding a token of code, docstrings, comments and
blank lines left out (how the house's size goal is measured).

    python scripts/count_lines.py            # evalbot/, one total
    python scripts/count_lines.py -v PATH... # each file, largest first, then the total

A line counts when it holds a token other than a comment, a line end, an indent or a dedent;
the lines of a module's, class's or function's docstring never count.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def code_lines(source: str) -> int:
    """The code lines of one module's text."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(ast.parse(source)):
        body = node.body if isinstance(node, _DOCUMENTED) else []
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            lines.difference_update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return len(lines)


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    paths = [Path(arg) for arg in argv if arg != "-v"] or [Path("evalbot")]
    files = [f for p in paths for f in (sorted(p.rglob("*.py")) if p.is_dir() else [p])]
    counts = sorted(
        ((code_lines(f.read_text(encoding="utf-8")), str(f)) for f in files), reverse=True
    )
    for count, name in counts if verbose else []:
        print(f"{count:6d} {name}")
    print(sum(count for count, _ in counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
