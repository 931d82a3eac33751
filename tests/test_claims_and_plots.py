"""Claims ledger rules, the ledger files, deterministic figure saving, experiment loading."""

from __future__ import annotations

import hashlib
import re
from fractions import Fraction

import matplotlib.pyplot as plt
import pytest

from capkit import plots, reproduce
from capkit.errors import CapkitError
from capkit.reproduce import claims


@pytest.mark.parametrize(
    "paper, reproduced, rule, kwargs, ok",
    [
        (0.31, 0.3074, "round", {"decimals": 2}, True),
        (0.31, 0.3151, "round", {"decimals": 2}, False),
        (134, 134.0, "exact", {}, True),
        (Fraction(1, 3), 1 / 3, "exact", {}, False),  # a float is not exactly 1/3
        (Fraction(1, 3), Fraction(2, 6), "exact", {}, True),
        (Fraction(1, 3), "1/3", "exact", {}, True),  # a fraction as JSON stores it
        ("1/3", Fraction(1, 3), "exact", {}, True),
        ("1/3", "2/6", "exact", {}, False),  # two strings compare as written
        (1.0, 1.05, "abs_tol", {"tol": 0.1}, True),
        (1.0, 1.2, "rel_tol", {"tol": 0.1}, False),
        (0.5, 0.4, "le", {}, True),
        (0.5, 0.5, "lt", {}, False),
        ((13.6, 14.9), 14.0, "between", {}, True),
        ((13.6, 14.9), 15.0, "between", {}, False),
        ("yes", True, "true", {}, True),
        ("yes", False, "true", {}, False),
    ],
)
def test_rules(paper, reproduced, rule, kwargs, ok):
    claim = claims.make_claim("c", "src", "stmt", paper, reproduced, rule, **kwargs)
    assert claim.ok is ok


def test_differs_needs_a_reason_and_never_fails():
    with pytest.raises(CapkitError, match="note"):
        claims.make_claim("c", "s", "t", 1, 2, "differs")
    claim = claims.make_claim("c", "s", "t", 1, 2, "differs", note="synthpop 1.9-2 gives 2")
    assert claim.ok and claim.verdict == claims.DIFFERS


def test_bad_rule_arguments():
    with pytest.raises(CapkitError, match="rule must be"):
        claims.make_claim("c", "s", "t", 1, 1, "approx")
    with pytest.raises(CapkitError, match="tol"):
        claims.make_claim("c", "s", "t", 1, 1, "abs_tol")
    with pytest.raises(CapkitError, match="decimals"):
        claims.make_claim("c", "s", "t", 1, 1, "round")


def test_ledger_roundtrip_and_markdown(tmp_path):
    ledger = claims.Ledger("demo")
    ledger.check("a", "Table 7", "average CAP", 0.31, 0.3074, "round", decimals=2)
    ledger.check("b", "Sec. 4", "predictions", 134, 133, "exact")
    with pytest.raises(CapkitError, match="used twice"):
        ledger.check("a", "x", "y", 1, 1)
    assert not ledger.ok
    path = tmp_path / "sub" / "demo.json"
    ledger.save(path)
    again = claims.load(path)
    assert again.claims == ledger.claims
    from capkit.reproduce import locators

    text = locators.ledger_page([again], {})
    assert ("**2 claims: 1 reproduced; 0 NOT reproduced (declared before the run); 1 without "
            "their declared verdict.**") in text
    assert ("| b | b |  | 134 | 133 | **NOT reproduced, declared reproduced: the run fails** |"
            in text)
    ledger.save(None)  # no-op under nbval


def test_ledger_file_written_by_reproduce(tmp_path):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "x.yaml").write_text("name: x\nnotebook: notebooks/01_x.ipynb\n")
    ledger = claims.Ledger("x")
    ledger.check("a", "s", "t", 1, 1)
    reproduce.write_ledger(tmp_path, ledgers=[ledger], only_update=False)
    assert "**1 claims: 1 reproduced" in (tmp_path / "figures" / "claims.md").read_text()
    assert [e.name for e in reproduce.load_experiments(tmp_path)] == ["x"]


def test_experiment_file_must_name_its_notebook(tmp_path):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "bad.yaml").write_text("name: bad\n")
    with pytest.raises(CapkitError, match="lacks 'notebook'"):
        reproduce.load_experiments(tmp_path)


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_save_is_byte_identical(tmp_path):
    def draw():
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, 1, 2], [1, 0, 2], color="tab:red")
        ax.set_title("CAP")
        return fig

    first = plots.save(draw(), "demo", tmp_path / "a")
    second = plots.save(draw(), "demo", tmp_path / "b")
    assert [p.suffix for p in first] == [".png", ".svg"]
    assert [_digest(p) for p in first] == [_digest(p) for p in second]
    plt.close("all")


def test_save_rejects_paths_as_names(tmp_path):
    fig = plt.figure()
    with pytest.raises(CapkitError, match="plain file stem"):
        plots.save(fig, "sub/dir", tmp_path)
    plt.close(fig)


def _tiny_project(root):
    """An experiment whose notebook records one claim (paper 1, quick run 2) and writes no
    figure: papermill runs it in a real kernel."""
    import nbformat

    (root / "experiments").mkdir()
    (root / "notebooks").mkdir()
    (root / "experiments" / "x.yaml").write_text(
        "name: x\nnotebook: notebooks/01_x.ipynb\nparameters: {value: 1}\n"
        "quick_parameters: {value: 2}\noutputs: []\n")
    params = nbformat.v4.new_code_cell(
        'figures_dir = "../build/figures"\nclaims_path = None\nvalue = 1')
    params.metadata["tags"] = ["parameters"]
    body = nbformat.v4.new_code_cell(
        "from capkit.reproduce import claims\nledger = claims.Ledger('x')\n"
        "ledger.check('a', 's', 't', 1, value, 'exact')\nledger.save(claims_path)\n"
        "assert ledger.ok, ledger.failures()")
    nb = nbformat.v4.new_notebook(cells=[params, body])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, root / "notebooks" / "01_x.ipynb")
    # a second experiment, run after the first stops on its assert
    (root / "experiments" / "y.yaml").write_text("name: y\nnotebook: notebooks/02_y.ipynb\n")
    body.source = body.source.replace("Ledger('x')", "Ledger('y')").replace(", value,", ", 1,")
    nbformat.write(nb, root / "notebooks" / "02_y.ipynb")
    (root / "figures").mkdir()
    (root / "figures" / "claims.md").write_text("the full run's ledger\n")


def test_a_quick_run_writes_under_build_not_figures(tmp_path):
    """``capkit reproduce --only x --quick`` leaves the tracked figures/claims.md alone and
    writes its ledger to build/quick/."""
    from click.testing import CliRunner

    from capkit.cli.main import main

    _tiny_project(tmp_path)
    result = CliRunner().invoke(main, ["reproduce", "--only", "x", "--quick",
                                       "--root", str(tmp_path)])
    assert result.exit_code == 1, result.output  # the quick value 2 is not the paper's 1
    assert "build/quick/claims.md" in result.output
    assert (tmp_path / "figures" / "claims.md").read_text() == "the full run's ledger\n"


def test_a_notebook_stopped_by_its_claims_is_gathered_and_the_run_fails(tmp_path):
    """A notebook's `assert ledger.ok` stops it after it saved its claims: the run goes on to
    the next notebook, writes the ledger with the failure, and exits non-zero."""
    from click.testing import CliRunner

    from capkit.cli.main import main

    _tiny_project(tmp_path)
    result = CliRunner().invoke(main, ["reproduce", "--quick", "--root", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "x: a: NOT reproduced (declared: reproduced); paper 1, reproduced 2" in result.output
    assert re.search(r"^y +[0-9.]+ s +1/1 claims as declared", result.output, re.M)  # it ran
    page = (tmp_path / "build" / "quick" / "claims.md").read_text()
    assert "**2 claims: 1 reproduced; 0 NOT reproduced (declared before the run); 1 without" \
        in page
    assert not (tmp_path / "figures" / "claims.json").exists()
    quick = (tmp_path / "build" / "quick" / "claims.md").read_text()
    assert "NOT reproduced" in quick
    assert reproduce.output_folder(tmp_path, quick=False) == tmp_path / "figures"


def test_reproduce_refuses_upfront_when_a_notebooks_data_cannot_be_loaded(tmp_path,
                                                                        monkeypatch):
    """A run whose notebooks need a data set that cannot be loaded stops before any notebook
    runs, in one Error line naming the experiments, the reason, CAPKIT_DATA and the
    experiments that need no data (instead of a kernel traceback minutes later)."""
    import nbformat
    from click.testing import CliRunner

    from capkit.cli.main import main
    from capkit.reproduce import runner

    _tiny_project(tmp_path)
    (tmp_path / "experiments" / "y.yaml").write_text(
        "name: y\nnotebook: notebooks/02_y.ipynb\nparameters: {}\noutputs: []\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from capkit import datasets\nframe = datasets.load_adult(progress=False)")])
    nbformat.write(nb, tmp_path / "notebooks" / "02_y.ipynb")
    assert runner.data_needed(tmp_path / "notebooks" / "02_y.ipynb") == ("adult",)
    assert runner.data_needed(tmp_path / "notebooks" / "01_x.ipynb") == ()
    monkeypatch.setattr(runner, "unavailable",
                        lambda name: "could not download adult.data (no network)")
    ran = []
    monkeypatch.setattr("papermill.execute_notebook", lambda *a, **k: ran.append(a))
    result = CliRunner().invoke(main, ["reproduce", "--root", str(tmp_path)])
    assert result.exit_code == 1 and ran == []
    error = result.output.strip().splitlines()[-1]
    assert error.startswith("Error: the adult data could not be loaded, which y need: could "
                            "not download adult.data (no network)")
    assert "CAPKIT_DATA" in error and "--only (x)" in error
    assert (tmp_path / "figures" / "claims.md").read_text() == "the full run's ledger\n"


# --- every claim rule at its boundary: a rule made strict, or loosened, fails here ---------
# The operands are exact binary fractions (0.25, 1.25, 2.5, ...) so that the boundary cases
# compare equal without rounding; the "just outside" cases are 1e-7 away, far above rounding.

@pytest.mark.parametrize(
    "paper, reproduced, rule, kwargs, ok",
    [
        (0.25, 0.255, "round", {"decimals": 2}, True),      # |d| = 0.005: the printed rounding
        (0.25, 0.245, "round", {"decimals": 2}, True),
        (0.25, 0.2550001, "round", {"decimals": 2}, False),
        (0.25, 0.2449999, "round", {"decimals": 2}, False),
        (3, 3.5, "round", {"decimals": 0}, True),
        (3, 3.5000001, "round", {"decimals": 0}, False),
        (1.0, 1.25, "abs_tol", {"tol": 0.25}, True),        # |d| = tol belongs in
        (1.0, 0.75, "abs_tol", {"tol": 0.25}, True),
        (1.0, 1.2500001, "abs_tol", {"tol": 0.25}, False),
        (1.0, 0.7499999, "abs_tol", {"tol": 0.25}, False),
        (2.0, 2.5, "rel_tol", {"tol": 0.25}, True),         # |d| = tol * |paper|
        (-2.0, -2.5, "rel_tol", {"tol": 0.25}, True),       # |paper| for a negative paper value
        (2.0, 2.5000001, "rel_tol", {"tol": 0.25}, False),
        (-2.0, -1.4999999, "rel_tol", {"tol": 0.25}, False),
        (0.5, 0.5, "le", {}, True), (0.5, 0.5000001, "le", {}, False), (0.5, 0.4, "le", {}, True),
        (0.5, 0.5, "lt", {}, False), (0.5, 0.4999999, "lt", {}, True),
        (0.5, 0.5, "ge", {}, True), (0.5, 0.4999999, "ge", {}, False), (0.5, 0.6, "ge", {}, True),
        (0.5, 0.5, "gt", {}, False), (0.5, 0.5000001, "gt", {}, True),
        ((0.25, 0.75), 0.25, "between", {}, True),          # both bounds belong in
        ((0.25, 0.75), 0.75, "between", {}, True),
        ((0.25, 0.75), 0.2499999, "between", {}, False),
        ((0.25, 0.75), 0.7500001, "between", {}, False),
        ([5, 5], 5, "between", {}, True),
        (134, 134, "exact", {}, True), (134, 135, "exact", {}, False),
        (0.5, 0.25 + 0.25, "exact", {}, True),  # the same double
        (0.3, 0.1 + 0.2, "exact", {}, False),   # not the same double
        ("words", 1, "true", {}, True), ("words", 0, "true", {}, False),
        (0.5, float("nan"), "ge", {}, False),
        (0.5, float("nan"), "le", {}, False),
        (0.5, float("nan"), "abs_tol", {"tol": 1.0}, False),
    ],
)
def test_rule_boundaries(paper, reproduced, rule, kwargs, ok):
    claim = claims.make_claim("c", "src", "stmt", paper, reproduced, rule, **kwargs)
    assert claim.ok is ok
    assert claim.verdict == (claims.REPRODUCED if ok else claims.NOT_REPRODUCED)


@pytest.mark.parametrize("reproduced, verdict", [
    (0.8351, "differs (another method, stated)"),   # the lower bound belongs in
    (0.9, "differs (another method, stated)"),      # the upper bound belongs in
    (0.87, "differs (another method, stated)"),
    (0.8350999, claims.NOT_REPRODUCED),              # came back toward the paper's value
    (0.83, claims.NOT_REPRODUCED),                   # the difference disappeared
    (0.9000001, claims.NOT_REPRODUCED),              # it grew past its declared size
])
def test_differs_within_its_declared_band(reproduced, verdict):
    claim = claims.make_claim("c", "s", "t", 0.83, reproduced, "differs", within=(0.8351, 0.9),
                              cause="method", note="saiph projects with a randomised SVD")
    assert claim.verdict == verdict
    assert claim.ok is (verdict != claims.NOT_REPRODUCED)
    assert claim.within == [0.8351, 0.9]


@pytest.mark.parametrize("cause, verdict", [
    ("paper", "differs (paper's own inconsistency)"),
    ("peer", "differs (peer's documented bug)"),
    ("method", "differs (another method, stated)"),
    ("not comparable", "not comparable"),
    ("", claims.DIFFERS),
])
def test_differs_causes(cause, verdict):
    claim = claims.make_claim("c", "s", "t", 900, 1000, "differs", within=(1000, 1000), cause=cause,
                              note="the table sums to 1000")
    assert claim.verdict == verdict and claim.ok


def test_differs_refuses_what_could_not_fail():
    with pytest.raises(CapkitError, match="holds the paper's value"):
        claims.make_claim("c", "s", "t", 0.83, 0.84, "differs", within=(0.8, 0.9), note="x")
    with pytest.raises(CapkitError, match="holds the paper's value"):  # bound included
        claims.make_claim("c", "s", "t", 0.8, 0.84, "differs", within=(0.8, 0.9), note="x")
    with pytest.raises(CapkitError, match="holds the paper's value"):  # both bounds
        claims.make_claim("c", "s", "t", 0.9, 0.84, "differs", within=(0.8, 0.9), note="x")
    with pytest.raises(CapkitError, match="low, high"):  # a band of one value is allowed
        claims.make_claim("c", "s", "t", 0.5, 0.84, "differs", within=(0.84, 0.8399), note="x")
    assert claims.make_claim("c", "s", "t", 0.5, 0.84, "differs", within=(0.84, 0.84),
                             note="x").ok
    with pytest.raises(CapkitError, match="low, high"):
        claims.make_claim("c", "s", "t", 0.5, 0.84, "differs", within=(0.9, 0.8), note="x")
    with pytest.raises(CapkitError, match="cause must be"):
        claims.make_claim("c", "s", "t", 0.5, 0.84, "differs", within=(0.8, 0.9), note="x",
                          cause="version")
    with pytest.raises(CapkitError, match="numeric reproduced"):
        claims.make_claim("c", "s", "t", 0.5, True, "differs", within=(0.8, 0.9), note="x")
    with pytest.raises(CapkitError, match="belong to rule 'differs'"):
        claims.make_claim("c", "s", "t", 0.5, 0.5, "exact", within=(0.8, 0.9))
    with pytest.raises(CapkitError, match="give no expect"):
        claims.make_claim("c", "s", "t", 0.5, 0.84, "differs", note="x",
                          expect=claims.NOT_REPRODUCED)


def test_a_claim_declared_not_reproduced():
    """It is reported NOT reproduced and passes; reproducing after all fails it."""
    with pytest.raises(CapkitError, match="reason"):
        claims.make_claim("c", "s", "t", 0.5, 0.4, "ge", expect=claims.NOT_REPRODUCED)
    with pytest.raises(CapkitError, match="expect must be"):
        claims.make_claim("c", "s", "t", 0.5, 0.4, "ge", expect="differs")
    missed = claims.make_claim("c", "s", "t", 0.5, 0.4, "ge", expect=claims.NOT_REPRODUCED,
                               note="known: the attacker differs")
    assert missed.verdict == claims.NOT_REPRODUCED and missed.ok
    back = claims.make_claim("c", "s", "t", 0.5, 0.5, "ge", expect=claims.NOT_REPRODUCED,
                             note="known: the attacker differs")
    assert back.verdict == claims.REPRODUCED and not back.ok


def test_ledger_declarations():
    declared = {"b": {"expect": claims.NOT_REPRODUCED, "reason": "declared before the run"},
                "never": {"expect": claims.NOT_REPRODUCED, "reason": "r"}}
    ledger = claims.Ledger("demo", declared=declared)
    ledger.check("a", "s", "t", 1, 1)
    claim = ledger.check("b", "s", "t", 0.5, 0.4, "ge", note="measured 0.4")
    assert claim.expect == claims.NOT_REPRODUCED and claim.ok
    assert claim.note == "declared before the run; measured 0.4"
    assert not ledger.ok and ledger.unchecked == ["never"]  # a declared claim never made fails
    assert ledger.failures() == ["never: declared but never checked"]
    ledger.check("never", "s", "t", 1, 1)  # reproduces, though declared NOT reproduced
    assert not ledger.ok
    assert ledger.failures()[0].startswith("never: reproduced (declared: NOT reproduced)")
    with pytest.raises(CapkitError, match="declared twice"):
        claims.Ledger("x", declared=declared).check("b", "s", "t", 1, 1,
                                                    expect=claims.NOT_REPRODUCED, note="n")
    with pytest.raises(CapkitError, match="gives no reason"):
        claims.Ledger("x", declared={"a": {"expect": claims.NOT_REPRODUCED}}).check(
            "a", "s", "t", 1, 1)
    again = claims.Ledger.from_dict(ledger.to_dict())
    assert again.declared == declared and again.claims == ledger.claims


# --- the reviewer's page: locators and the grid by paper and table -------------------------

def _locator_project(root):
    (root / "experiments").mkdir()
    (root / "experiments" / "x.yaml").write_text("name: x\nnotebook: notebooks/01_x.ipynb\n")
    (root / "experiments" / "locators.yaml").write_text(
        "a: {paper: Baillargeon & Charest 2020, table: Table 7, row: O3 with S_b, column: v1}\n"
        "b: {paper: Baillargeon & Charest 2020, table: Table 7, row: O3 with S_g, column: v1,"
        " figure: fig7}\n")
    (root / "experiments" / "locators_seeds.yaml").write_text(
        "c: {paper: 'Raab, Nowok & Dibben', table: Table 1, row: income, column: DiSCO}\n")


def test_locators_read_from_every_file_and_not_taken_for_experiments(tmp_path):
    from capkit.reproduce import locators

    _locator_project(tmp_path)
    assert [e.name for e in reproduce.load_experiments(tmp_path)] == ["x"]
    found = locators.load_locators(tmp_path)
    assert set(found) == {"a", "b", "c"}
    assert found["c"] == {"paper": "Raab, Nowok & Dibben", "table": "Table 1", "row": "income",
                          "column": "DiSCO"}
    (tmp_path / "experiments" / "locators_bad.yaml").write_text("d: {paper: p, table: t}\n")
    with pytest.raises(CapkitError, match="locators_bad.yaml.*'d'.*row, column"):
        locators.load_locators(tmp_path)
    (tmp_path / "experiments" / "locators_bad.yaml").write_text(
        "a: {paper: p, table: t, row: r, column: c}\n")
    with pytest.raises(CapkitError, match="'a' is located twice"):
        locators.load_locators(tmp_path)


def test_ledger_page_groups_by_paper_and_table(tmp_path):
    _locator_project(tmp_path)
    ledger = claims.Ledger("x", declared={
        "d": {"expect": claims.NOT_REPRODUCED, "reason": "known before the run"}})
    ledger.check("a", "B&C, Table 7", "average CAP of O3 with S_b", 0.31, 0.3074, "round",
                 decimals=2)
    ledger.check("b", "B&C, Table 7", "average CAP of O3 with S_g", [0.3, 0.4], 0.35, "between")
    ledger.check("c", "Raab", "DiSCO income", 2.1, 1.55, "differs", within=(1.5, 1.6),
                 cause="paper", note="the paper's column repeats another")
    ledger.check("d", "nowhere, Sec. 9", "a claim without a locator", 1.0, 2.0, "le")
    reproduce.write_ledger(tmp_path, ledgers=[ledger], only_update=False)
    page = (tmp_path / "figures" / "claims.md").read_text()
    assert ("**4 claims: 2 reproduced, 1 differs (paper's own inconsistency); 1 NOT reproduced "
            "(declared before the run); 0 without their declared verdict.**") in page
    # one paper, one section; its table's grid, each claim linked to its notebook
    assert page.count("## Baillargeon & Charest 2020") == 1
    assert ("| [a](../notebooks/01_x.ipynb) | O3 with S_b | v1 | 0.31 | 0.3074 | reproduced |"
            in page)
    # a band claim prints its number, and the figure is linked
    assert "| [b](../notebooks/01_x.ipynb) | O3 with S_g | v1 | in [0.3, 0.4] | 0.35 |" in page
    assert "[fig7.png](fig7.png)" in page
    # the verdicts are told apart, with the declared band of a difference
    assert "| 2.1 | 1.55 (declared in [1.5, 1.6]) | differs (paper's own inconsistency) |" in page
    assert "NOT reproduced (declared)" in page and "*known before the run*" in page
    assert "## nowhere" in page  # no locator: grouped under its source's words
    # a claim without its declared verdict is listed first and marked
    ledger.check("e", "nowhere, Sec. 9", "fails", 1.0, 2.0, "le")
    reproduce.write_ledger(tmp_path, ledgers=[ledger], only_update=False)
    page = (tmp_path / "figures" / "claims.md").read_text()
    assert ("## Claims without their declared verdict\n\n- `e`: NOT reproduced, declared "
            "reproduced") in page


def test_ledger_page_grid_of_cells():
    from capkit.reproduce import locators

    ledger = claims.Ledger("x")
    where = {}
    for r in range(4):
        for c in range(4):
            ledger.check(f"r{r}c{c}", "s", "t", r + c / 10, r + c / 10, "exact")
            where[f"r{r}c{c}"] = {"paper": "P", "table": "T", "row": f"row {r}",
                                  "column": f"col {c}"}
    page = locators.ledger_page([ledger], where)
    assert "| row | col 0 | col 1 | col 2 | col 3 |" in page
    assert "| row 2 | 2 / 2 ✓ | 2.1 / 2.1 ✓ | 2.2 / 2.2 ✓ | 2.3 / 2.3 ✓ |" in page


def test_rule_texts_in_the_notebook_table():
    ledger = claims.Ledger("x")
    ledger.check("a", "s", "t", 0.31, 0.3074, "round", decimals=2)
    ledger.check("b", "s", "t", 1.0, 1.05, "abs_tol", tol=0.1)
    ledger.check("c", "s", "t", 1.0, 1.05, "rel_tol", tol=0.25)
    ledger.check("d", "s", "t", 1, 2, "differs", note="unbounded")
    ledger.check("e", "s", "t", 1, 2, "differs", within=(1.5, 2.5), note="bounded")
    ledger.check("f", "s", "t", [0.25, 0.75], 0.5, "between")
    assert ledger.to_frame()["rule"].tolist() == [
        "round to 2 dp", "abs_tol 0.1", "rel_tol 0.25", "differs", "differs, within [1.5, 2.5]",
        "between"]


def test_failures_name_the_declared_band():
    ledger = claims.Ledger("x")
    ledger.check("c", "s", "t", 0.83, 0.95, "differs", within=(0.8351, 0.9), cause="method",
                 note="saiph")
    assert ledger.failures() == [
        "c: NOT reproduced (declared: differs (another method, stated) within [0.8351, 0.9]); "
        "paper 0.83, reproduced 0.95"]


def test_every_claim_of_the_committed_ledger_is_located():
    """figures/claims.json (the last full run) holds no claim without a locator: a reviewer finds
    every claim under its paper and table."""
    import json
    from pathlib import Path

    from capkit.reproduce import locators

    root = Path(__file__).resolve().parents[1]
    located = locators.load_locators(root)
    ledgers = json.loads((root / "figures" / "claims.json").read_text())
    missing = [f"{lg['name']}:{c['id']}" for lg in ledgers for c in lg["claims"]
               if c["id"] not in located]
    assert not missing, missing


def test_committed_ledger_page_is_in_step_with_its_claims_and_locators(tmp_path) -> None:
    """``figures/claims.md`` is what the committed ``claims.json``, the experiments and the
    locators give: a locator or a declaration edited without a full run would leave the page a
    reviewer reads out of date."""
    import shutil
    from pathlib import Path

    from capkit.reproduce.runner import write_ledger

    repo = Path(__file__).resolve().parents[1]
    shutil.copytree(repo / "experiments", tmp_path / "experiments")
    shutil.copytree(repo / "figures", tmp_path / "figures")
    write_ledger(tmp_path, ledgers=[], only_update=True)
    assert ((tmp_path / "figures" / "claims.json").read_bytes()
            == (repo / "figures" / "claims.json").read_bytes())
    assert ((tmp_path / "figures" / "claims.md").read_text()
            == (repo / "figures" / "claims.md").read_text())
