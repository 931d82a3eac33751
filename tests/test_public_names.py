"""The public names of ../shared/DESIGN.md section 3 and the README's examples keep working
wherever their modules live in the house (DESIGN.md section 3, "Public names").

Values are the paper's printed ones (Baillargeon & Charest 2020, Tables 7 and 10) or follow
from the definitions by hand, never from the code under test.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent


def test_design_section_3_names() -> None:
    from capkit import cap, disclosure, minimal, paper, sampling, tables

    o3, s_b = paper.ORIGINALS["O3"], paper.SYNTHETICS["S_b"]
    assert cap.individual_cap(o3, s_b).shape == np.asarray(o3).shape
    assert round(cap.average_cap(o3, s_b, version=1), 4) == 0.3074  # Table 7
    # Table 10
    assert cap.correct_predictions(paper.ORIGINALS["O4"], paper.SYNTHETICS["S_e"]) == 272
    assert set(paper.ORIGINALS) == {"O1", "O2", "O3", "O4"}
    assert set(paper.SYNTHETICS) == {"S_a", "S_b", "S_e", "S_g"}
    assert np.asarray(paper.SMOKING_O).shape == np.asarray(paper.SMOKING_S).shape == (2, 2)

    # Theorem 2 by hand on a 2x2 original: o_min / n = (min over keys of the smallest count) / n
    o = np.array([[3, 1], [2, 4]])
    assert minimal.minimal_average_cap(o, version=1) == 1 / 10
    table = minimal.minimal_dataset(o, 6, version=1)
    assert table.sum() == 6 and table.shape == (2, 2)
    assert minimal.lemma1_dataset(o, [3, 3]).sum(axis=0).tolist() == [3, 3]

    draws = sampling.uniform_tables((2, 2), 3, 5, 0)
    assert draws.shape == (5, 2, 2) and (draws.sum(axis=(1, 2)) == 3).all()

    original = pd.DataFrame({"key": ["a", "a", "b", "b"], "target": ["x", "y", "x", "x"]})
    synthetic = pd.DataFrame({"key": ["a", "b", "b", "b"], "target": ["x", "x", "x", "y"]})
    t = tables.crosstab(original, synthetic, ["key"], "target")
    assert np.asarray(t.original).sum() == 4 and np.asarray(t.synthetic).sum() == 4
    # record CAP by Definition 1: key a -> P(x | a) = 1 in the synthetic data, key b -> 2/3
    caps = cap.record_cap(original, synthetic, ["key"], "target")
    np.testing.assert_allclose(caps.to_numpy(), [1.0, 0.0, 2 / 3, 2 / 3])
    result = disclosure.disclosure(synthetic, original, ["key"], "target")
    assert {"repU", "UiO"} <= set(result.ident.columns)
    assert {"DiSCO", "Dorig"} <= set(result.attrib.columns)
    assert {"DCAP", "TCAP"} <= set(result.allcaps.columns)
    # by hand (Raab, Nowok & Dibben's definitions): key b holds one target in the original, so
    # its 2 of 4 records are disclosive (Dorig 50%); key a holds one target (x) in the
    # synthetic data, which is right for (a, x) only: DiSCO 1 of 4 = 25%; no key is unique in
    # the original (UiO 0), and key a is unique in the synthetic data (UiS: 1 of 4 = 25%)
    attrib, ident = result.attrib.iloc[0], result.ident.iloc[0]
    assert (attrib["Dorig"], attrib["DiSCO"], ident["UiO"], ident["UiS"]) == (50.0, 25.0, 0.0, 25.0)
    summary = disclosure.disclosure_summary(synthetic, original, ["key"], ["target"])
    assert summary.targets == ["target"] and summary.n_orig == 4
    row = summary.attrib_table.iloc[0]
    assert (row["attrib.orig"], row["attrib.syn"]) == (50.0, 25.0)


def test_moved_modules_keep_their_old_names() -> None:
    """`from capkit.disclosure import disclosure`, `from capkit.synth import syn` and the short
    names of modules that moved under papers/ or counts/ (DESIGN.md section 3)."""
    import capkit
    from capkit.disclosure import disclosure
    from capkit.synth import syn

    assert callable(disclosure) and callable(syn)
    for name in ("cap", "minimal", "sampling", "paper", "disclosure", "tables"):
        assert hasattr(capkit, name), name


def test_membership_is_the_control_under_its_old_name() -> None:
    """The members-vs-holdout statistics moved to capkit.control when the membership-inference
    attacks arrived; `import capkit.membership` and `from capkit.membership import wilson` still
    give the same module and the same functions."""
    import capkit.membership
    from capkit.membership import compare_to_control, wilson

    import capkit
    import capkit.control

    assert capkit.membership is capkit.control
    assert wilson is capkit.control.wilson
    assert compare_to_control is capkit.control.compare_to_control


def test_readme_doctest_examples() -> None:
    """Every ``>>>`` example of the README runs and prints what the README says."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert blocks, "the README has no doctest example any more"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    for k, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, f"README block {k}", "README.md", 0))
    assert runner.summarize(verbose=False).failed == 0
