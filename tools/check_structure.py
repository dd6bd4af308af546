"""The size rules of docs/architecture.md, checked by `make lint`.

No module over 500 lines, no function over 60 lines, no function with a cyclomatic
complexity over 15 (radon's measure), and no private name (``_x``) imported from another
of convo's modules (rule 6). Prints one line per breach and exits 1 if any.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from radon.complexity import cc_visit

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_COMPLEXITY = 15


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _private_imports(path: Path, tree: ast.AST) -> list[str]:
    """``from convo.x import _name``: a private name used across modules."""
    return [
        f"{path}:{node.lineno}: imports the private name {alias.name} of {node.module}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("convo")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def check(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    problems = []
    lines = text.count("\n") + (not text.endswith("\n"))
    if lines > MAX_MODULE_LINES:
        problems.append(f"{path}: {lines} lines (max {MAX_MODULE_LINES})")
    tree = ast.parse(text)
    for fn in _functions(tree):
        length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
        if length > MAX_FUNCTION_LINES:
            problems.append(
                f"{path}:{fn.lineno}: {fn.name} is {length} lines (max {MAX_FUNCTION_LINES})"
            )
    problems += _private_imports(path, tree)
    for block in cc_visit(text):
        for item in [block, *getattr(block, "methods", [])]:
            if item.complexity > MAX_COMPLEXITY:
                problems.append(
                    f"{path}:{item.lineno}: {item.name} has complexity {item.complexity}"
                    f" (max {MAX_COMPLEXITY})"
                )
    return problems


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [Path("src")]
    files = [
        f for root in roots for f in ([root] if root.is_file() else sorted(root.rglob("*.py")))
    ]
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
