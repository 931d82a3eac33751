"""Claims ledger rules, the ledger files, deterministic figure saving, experiment loading."""

from __future__ import annotations

import hashlib
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
    text = claims.ledger_markdown([again])
    assert "1 reproduced" in text and "1 not reproduced" in text
    assert "| b | Sec. 4 | predictions | 134 | 133 | exact | NOT reproduced |" in text
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
        "ledger.check('a', 's', 't', 1, value, 'exact')\nledger.save(claims_path)")
    nb = nbformat.v4.new_notebook(cells=[params, body])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, root / "notebooks" / "01_x.ipynb")
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
