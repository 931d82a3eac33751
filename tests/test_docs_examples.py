"""Every example with printed output in README.md and docs/*.md is run by a test.

* ``>>>`` examples in fenced ``python`` blocks run as doctests.
* A fenced ``text`` block is output. The HTML comment just before it says what it is the output
  of: ``<!-- checked: output -->`` (the output of the last ``capkit`` command of the nearest
  ``bash`` block above), ``<!-- checked: error -->`` (that command fails with this message,
  compared without the page's line breaks), ``<!-- checked: file NAME -->`` (the start of a
  file that command wrote), or ``<!-- unchecked: REASON -->`` (e.g. data the project does not
  have). The
  ``bash`` blocks' ``python - <<'PY'`` scripts make the files first (SD2011 through capkit's
  loader and CART synthesis), in one scratch folder per page.

A text block matches when its lines appear in the output in order and consecutively, a line
``...`` standing for any number of lines; the versions line under "Produced by" (python,
capkit, numpy, ...) is compared without the version numbers.
"""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from reference_data import SHARED_DATA

from capkit.cli import main
from capkit.data import datasets

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>\w*)[ ]*\n(?P<body>.*?)^(?P=indent)```",
                   re.S | re.M)
MARK = re.compile(r"<!--\s*(checked|unchecked):\s*(.*?)\s*-->\s*$", re.S)
VERSIONS = re.compile(r"^python \d[^,]*, capkit .*$")


def _blocks(page: Path) -> list[dict]:
    """The fenced blocks of a page: language, body (indent removed) and the marker comment
    right before it (None without one)."""
    text = page.read_text(encoding="utf-8")
    out, end = [], 0
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").split("\n"))
        mark = MARK.search(text[end:m.start()].rstrip())
        out.append({"lang": m.group("lang"), "body": body,
                    "mark": None if mark is None else (mark.group(1), mark.group(2))})
        end = m.end()
    return out


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """A scratch folder shared by the pages, and the scripts already run in it."""
    return tmp_path_factory.mktemp("docs-examples"), set()


def _have_sd2011() -> bool:
    return (SHARED_DATA / "SD2011.rda").is_file() or (
        datasets.cache_dir() / "SD2011.rda").is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_doctest_examples(page: Path) -> None:
    """Every ``>>>`` example prints what the page says."""
    blocks = [b["body"] for b in _blocks(page) if b["lang"] == "python" and ">>>" in b["body"]]
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    for k, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, f"{page.name} block {k}", str(page), 0))
    assert runner.summarize(verbose=False).failed == 0


def test_every_output_block_says_what_checks_it() -> None:
    """A text block without a marker would be output that no test runs."""
    unmarked = [(page.name, b["body"].splitlines()[0] if b["body"] else "")
                for page in PAGES for b in _blocks(page)
                if b["lang"] == "text" and b["mark"] is None]
    assert not unmarked, unmarked
    checked = [page.name for page in PAGES for b in _blocks(page)
               if b["lang"] == "text" and b["mark"][0] == "checked"]
    assert checked.count("README.md") >= 1 and checked.count("own-data.md") >= 3


def _normal(line: str) -> str:
    line = line.rstrip()
    return "<versions>" if VERSIONS.match(line) else line


def _matches(expected: str, output: str) -> bool:
    """Whether the lines of ``expected`` occur in ``output`` in order, consecutively, with
    ``...`` lines standing for any lines."""
    pattern = []
    for line in expected.strip("\n").split("\n"):
        if line.strip() == "...":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(re.escape(_normal(line)) + r"\n")
    text = "\n".join(_normal(line) for line in output.split("\n")) + "\n"
    return re.search(r"(?:^|(?<=\n))" + "".join(pattern), text) is not None


def _commands(bash: str) -> list[list[str]]:
    """The ``capkit ...`` commands of a bash block (continuation lines joined), as arguments."""
    joined = re.sub(r"\\\n\s*", " ", bash)
    out = []
    for line in joined.split("\n"):
        words = shlex.split(line, comments=True)
        if words and Path(words[0]).name == "capkit":
            out.append(words[1:])
    return out


def _scripts(bash: str) -> list[str]:
    return re.findall(r"python - <<'PY'\n(.*?)\nPY\n", bash, flags=re.S)


@pytest.mark.skipif(not _have_sd2011(), reason="SD2011 data not available (set CAPKIT_DATA "
                    "to a folder with SD2011.rda)")
@pytest.mark.parametrize("name", ["README.md", "own-data.md", "safe-outputs.md"])
def test_printed_output_is_what_the_commands_print(name: str, scratch: tuple[Path, set[str]],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the page's scripts and commands in a scratch folder; every checked text block is
    what the command before it printed (or the start of the file it wrote). The pages make
    the same files with the same script, so it runs once."""
    page = next(p for p in PAGES if p.name == name)
    folder, done = scratch
    monkeypatch.chdir(folder)
    monkeypatch.setenv("CAPKIT_DATA", str(SHARED_DATA))
    blocks = _blocks(page)
    if name != "own-data.md":  # the README shows the same files: made by own-data's script
        blocks = [b for b in _blocks(ROOT / "docs" / "own-data.md") if b["lang"] == "bash"][
            :1] + blocks
    command, last_output, checked = None, None, 0
    for block in blocks:
        if block["lang"] == "bash":
            for script in _scripts(block["body"]):
                if script not in done:  # the pages share their first script: run it once
                    exec(compile(script, f"{name} script", "exec"), {})  # noqa: S102
                    done.add(script)
            commands = _commands(block["body"])
            if commands:  # run when a checked block needs it (other commands are sketches)
                command, last_output = commands[-1], None
        elif block["lang"] == "text" and block["mark"] and block["mark"][0] == "checked":
            what = block["mark"][1]
            if last_output is None:
                assert command is not None, f"{name}: no capkit command before a checked block"
                result = CliRunner().invoke(main, command)
                failed = what.startswith("error")
                assert (result.exit_code != 0) == failed, (command, result.output)
                last_output = result.output if failed else result.stdout
            if what.startswith("error"):
                assert " ".join(block["body"].split()) in " ".join(last_output.split()), (
                    f"{name}: the error is not what the command printed:\n{last_output}")
                checked += 1
                continue
            shown = (Path(what.split(None, 1)[1]).read_text(encoding="utf-8")
                     if what.startswith("file ") else last_output)
            assert shown is not None and _matches(block["body"], shown), (
                f"{name}: this block is not what the command printed:\n{block['body']}\n"
                f"--- printed:\n{shown}")
            checked += 1
    assert checked >= 1


def test_no_citation_of_this_project_s_issue_numbers() -> None:
    """Users cannot open the project's issue tracker: code, tests, docs and benchmarks cite the
    docs page or the paper instead."""
    pattern = re.compile(r"\bissues? *#?\d+|\bissue #\d+", re.I)
    found = []
    for folder in ("capkit", "tests", "docs", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".md") and path.is_file():
                for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
                    if pattern.search(line):
                        found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
