"""A small mutation run over the rule modules: flip one comparison operator, boolean operator
or numeric constant at a time, run the tests that pin the module, count the mutants they kill.

Not collected by pytest (no ``test_`` prefix). Run from a throw-away copy of the project, as
it rewrites the module it mutates (and restores it)::

    python tests/mutate_rules.py capkit/audit/verdicts.py tests/test_verdict_rules.py

Prints one line per surviving mutant (line, what changed) and the counts.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
        ast.NotIn: ast.In}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def mutants(source: str):
    """(line, description, mutated source) for every single-point mutation."""
    tree = ast.parse(source)
    skip = _docstring_nodes(tree)
    points = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in SWAP:
                    points.append((node, "cmp", k))
        elif isinstance(node, ast.BoolOp):
            points.append((node, "bool", None))
        elif (isinstance(node, ast.Constant) and id(node) not in skip
              and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)):
            points.append((node, "num", None))
    for index, (_, kind, k) in enumerate(points):
        tree = ast.parse(source)
        node = [n for n in ast.walk(tree) if _same(n, points[index][0])][0]
        if kind == "cmp":
            old = type(node.ops[k]).__name__
            node.ops[k] = SWAP[type(node.ops[k])]()
            what = f"{old} -> {type(node.ops[k]).__name__}"
        elif kind == "bool":
            old = type(node.op).__name__
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            what = f"{old} -> {type(node.op).__name__}"
        else:
            old = node.value
            node.value = 0 if old not in (0, 0.0) else 1
            if isinstance(old, float) and old not in (0.0,):
                node.value = old * 2
            what = f"{old!r} -> {node.value!r}"
        yield node.lineno, what, ast.unparse(tree)


def _same(a: ast.AST, b: ast.AST) -> bool:
    return (type(a) is type(b) and getattr(a, "lineno", None) == getattr(b, "lineno", None)
            and getattr(a, "col_offset", None) == getattr(b, "col_offset", None))


def main(module: str, *tests: str) -> int:
    path = Path(module)
    original = path.read_text()
    killed, survived = 0, []
    try:
        for line, what, text in mutants(original):
            path.write_text(text)
            run = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-n", "0",
                                  "-p", "no:randomly", "-p", "no:cacheprovider", *tests],
                                 capture_output=True, text=True, timeout=600)
            if run.returncode == 0:
                survived.append((line, what))
                print(f"survived: {module}:{line}: {what}", flush=True)
            else:
                killed += 1
    finally:
        path.write_text(original)
    total = killed + len(survived)
    print(f"{module}: {total} mutants, {killed} killed, {len(survived)} survived")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
