"""Names and values nobody vetted cannot act through capkit's outputs (docs/safe-outputs.md):
markdown renders them as text (no HTML, link, image or table cell of theirs), the text report
shows their control characters escaped, the CSV files capkit writes neutralise formulas
(OWASP's rule) unless asked not to, ``sdc`` keeps its data and warns, and DuckDB spills to a
private folder removed at exit.

The files are built here: a key named like an HTML tag, a key named like a markdown image,
values that are script tags, event handlers, ``javascript:`` links, table pipes, terminal
escape sequences and spreadsheet formulas.
"""

from __future__ import annotations

import csv
import json
import os
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

import capkit
from capkit.cli import main

KEY_TAG = "<b onmouseover=alert(1)>k</b>"
KEY_IMAGE = "![i](javascript:alert(2))"
TARGET = "t|x\x1b[2J"  # a name that would clear the terminal
HTML_VALUES = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
               "[x](javascript:alert(1))", "a|b", "<javascript:alert(3)>"]
TERMINAL_VALUES = ["\x1b[2J\x1b[HALL CLEAR", "ok\x08\x08\x08no", "\x9b31mred", "fake\u202etxt"]
FORMULAS = ["=HYPERLINK(\"http://evil\",\"x\")", "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3"]


def hostile(n: int = 150, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({KEY_TAG: rng.choice(HTML_VALUES, n),
                         KEY_IMAGE: rng.choice(TERMINAL_VALUES + FORMULAS[:2], n),
                         TARGET: rng.choice(FORMULAS + HTML_VALUES[:2], n),
                         "d": rng.integers(0, 5, n)})


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    out = {}
    for name, seed in (("orig", 0), ("syn", 1), ("hold", 2)):
        out[name] = folder / f"{name}.parquet"  # parquet: every character kept as written
        hostile(seed=seed).to_parquet(out[name], index=False)
    return out


KEYS = f"{KEY_TAG},{KEY_IMAGE}"


def command_args(command: str, files: dict[str, Path]) -> list[str]:
    o, s, h = (str(files[k]) for k in ("orig", "syn", "hold"))
    return {
        "report": ["report", o, s, "--keys", KEYS, "--family", "synthpop measures",
                   "--show-values", "-q"],
        "disclosure": ["disclosure", o, s, "--keys", KEYS, "-q"],
        "cap": ["cap", o, s, "--keys", KEYS, "--targets", TARGET, "-q"],
        "attack": ["attack", o, s, "--keys", KEYS, "--targets", TARGET, "--attackers", "cap",
                   "-q"],
        "membership": ["membership", o, s, "--holdout", h, "--attacks", "dcr", "--allow-overlap",
                       "-q"],
    }[command]


_OUTPUTS: dict[tuple[str, str], str] = {}


def output(command: str, fmt: str, files: dict[str, Path]) -> str:
    if (command, fmt) not in _OUTPUTS:
        # color=True: click strips ANSI sequences from what it echoes only when not on a
        # terminal; a user's terminal gets them all
        result = CliRunner().invoke(main, [*command_args(command, files), "--format", fmt],
                                    color=True)
        assert result.exit_code == 0, result.output
        _OUTPUTS[(command, fmt)] = result.stdout
    return _OUTPUTS[(command, fmt)]


class Elements(HTMLParser):
    """Every element and attribute of an HTML text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]


def elements(html: str) -> Elements:
    parser = Elements()
    parser.feed(html)
    return parser


#: What capkit's markdown makes of its own text: headings, paragraphs, lists, tables, bold and
#: italic captions, the command's code block.
MARKDOWN_TAGS = {"h1", "h2", "h3", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td",
                 "strong", "em", "pre", "code", "hr", "br"}


def check_active(parsed: Elements, allowed: set[str] | None) -> None:
    """No element outside ``allowed`` (when given), no script, no event handler, no
    ``javascript:`` address."""
    if allowed is not None:
        assert set(parsed.tags) <= allowed, set(parsed.tags) - allowed
    assert "script" not in parsed.tags and "iframe" not in parsed.tags
    assert not [k for k, _ in parsed.attrs if k.lower().startswith("on")]
    assert not [v for _, v in parsed.attrs if "javascript:" in v.lower().replace(" ", "")]


HIDDEN = [chr(c) for c in [*range(0, 9), *range(11, 32), *range(0x7F, 0xA0)]] + ["\u202e"]


@pytest.mark.parametrize("command", ["report", "disclosure", "cap", "attack", "membership"])
def test_markdown_renders_names_and_values_as_text(files: dict[str, Path], command: str) -> None:
    text = output(command, "markdown", files)
    for rendered in (markdown.markdown(text, extensions=["tables", "fenced_code"]),
                     MarkdownIt("commonmark").enable("table").render(text)):
        check_active(elements(rendered), MARKDOWN_TAGS)
        # every table row has as many cells as its header: no pipe of a value split a cell
        for table in rendered.split("<table>")[1:]:
            body = table.split("</table>")[0]
            rows = body.split("<tr>")[1:]
            widths = {r.count("<th") + r.count("<td") for r in rows}
            assert len(widths) == 1, widths
    if command in ("report", "cap", "attack"):  # the key names show, as text
        shown = markdown.markdown(text, extensions=["tables"])
        assert "&lt;b onmouseover=alert(1)&gt;k&lt;/b&gt;" in shown
    assert not any(c in text for c in HIDDEN)


@pytest.mark.parametrize("command", ["report", "disclosure", "cap", "attack", "membership"])
def test_text_report_shows_control_characters_escaped(files: dict[str, Path],
                                                      command: str) -> None:
    text = output(command, "text", files)
    assert not any(c in text for c in HIDDEN), [c for c in HIDDEN if c in text]
    if command in ("report", "cap"):  # --keys is in the command line it prints
        assert "\\x1b[2J\\x1b[HALL CLEAR" in text or KEY_IMAGE in text


@pytest.mark.parametrize("command", ["report", "disclosure", "cap", "attack", "membership"])
def test_html_and_json_hold_nothing_active(files: dict[str, Path], command: str) -> None:
    page = output(command, "html", files)
    check_active(elements(page), None)
    assert not any(c in page for c in HIDDEN)
    doc = output(command, "json", files)
    assert not any(c in doc for c in HIDDEN[9:])  # json.dumps escapes the C0 controls itself
    parsed = json.dumps(json.loads(doc), ensure_ascii=False)
    if command != "membership":  # the names are kept exactly in the data
        assert KEY_TAG in parsed and KEY_IMAGE in parsed


def _cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


@pytest.mark.parametrize("command", ["report", "cap"])
def test_records_csv_neutralises_formulas_by_default(files: dict[str, Path], tmp_path: Path,
                                                      command: str) -> None:
    safe, raw = tmp_path / "safe.csv", tmp_path / "raw.csv"
    base = command_args(command, files)  # the report's with --show-values: values written
    result = CliRunner().invoke(main, [*base, "--records", str(safe)])
    assert result.exit_code == 0, result.output
    cells = _cells(safe)
    starts = [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")]
    assert not starts, starts[:5]
    assert not [c for c in cells if c.startswith("-") and not _is_number(c)]
    assert any(c.startswith("'=HYPERLINK") for c in cells)  # quoted, not dropped
    result = CliRunner().invoke(main, [*base, "--records", str(raw), "--no-escape-formulas"])
    assert result.exit_code == 0, result.output
    assert any(c.startswith("=HYPERLINK") for c in _cells(raw))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_sdc_keeps_the_data_and_warns_about_formulas(files: dict[str, Path],
                                                     tmp_path: Path) -> None:
    out = tmp_path / "treated.csv"
    result = CliRunner().invoke(main, ["sdc", str(files["orig"]), str(files["syn"]), "--keys",
                                       KEYS, "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out, keep_default_na=False, dtype=str)
    given = pd.read_parquet(files["syn"]).astype(str)
    assert written[TARGET].tolist() == given[TARGET].tolist()  # kept as it was
    flat = " ".join(result.stderr.split())
    assert "Warning:" in flat and "formulas" in flat and f"{TARGET!r}" in flat
    clean = tmp_path / "clean.csv"
    plain = pd.DataFrame({"a": ["x", "y"] * 30, "b": ["p", "q", "r"] * 20})
    plain.to_csv(tmp_path / "o.csv", index=False)
    result = CliRunner().invoke(main, ["sdc", str(tmp_path / "o.csv"), str(tmp_path / "o.csv"),
                                       "--keys", "a", "-o", str(clean)])
    assert result.exit_code == 0 and "formula" not in result.output


def test_duckdb_spills_to_a_private_folder_removed_at_exit(tmp_path: Path) -> None:
    code = ("import os, stat, tempfile; from capkit.counts.engines import duckdb as d; "
            "con = d.connect(); folder = con.execute(\"SELECT current_setting('temp_directory')\""
            ").fetchone()[0]; st = os.stat(folder); "
            "print(folder, oct(stat.S_IMODE(st.st_mode)), st.st_uid == os.getuid(), "
            "folder != os.path.join(tempfile.gettempdir(), f'capkit_duckdb_{os.getpid()}'))")
    # another user's folder of the old predictable name, open to all, is not used
    env = {**os.environ, "TMPDIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(Path(capkit.__file__).parents[1]),
                                          os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    folder, mode, mine, fresh = done.stdout.split()
    assert Path(folder).parent == tmp_path
    assert mode == oct(stat.S_IRWXU) and mine == "True" and fresh == "True"
    assert not Path(folder).exists()  # removed at exit
