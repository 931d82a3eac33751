"""The declared list of the papers' numbers no claim can check, and the seeds' claim locators."""

from pathlib import Path

import pytest
import yaml

from capkit.errors import CapkitError
from capkit.reproduce import uncheckable

ROOT = Path(__file__).resolve().parents[1]
LEDGER = ROOT / "experiments" / "ledger"
PAPERS = {"Baillargeon & Charest 2020",
          "Raab, Nowok & Dibben, Practical privacy metrics for synthetic data",
          "SDMetrics, CategoricalCAP", "Hu, Methods for Risk Evaluation part 3 (lecture)",
          "Minieri 2022, Synthetic data for privacy preservation, Part 2"}
SOFTWARE = {"capkit's own checks (beyond the papers)", "SDMetrics 0.32 (software)",
            "synthpop 1.9-2 (its own syntheses)",
            "pycanon 1.3.6 (software)"}


def _write(tmp_path, payload):
    path = tmp_path / "uncheckable.yaml"
    path.write_text(yaml.safe_dump(payload))
    return path


ENTRY = {"paper": "Hu, Methods for Risk Evaluation part 3 (lecture)", "table": "ACS example",
         "row": "synthetic", "column": "CAP", "printed": "0.7228838", "reason": "no data"}


def test_shipped_list_loads_with_a_reason_for_every_entry():
    entries = uncheckable.load(LEDGER / "uncheckable.yaml")
    assert len(entries) >= 10
    assert {e.paper for e in entries} <= PAPERS
    assert all(e.reason and e.printed for e in entries)


def test_shipped_list_declares_the_lectures_numbers():
    # the lecture's three printed results have no data here: each must stay declared
    printed = {e.printed for e in uncheckable.load(LEDGER / "uncheckable.yaml")}
    assert {"0.7228838", "0.7224124", "0.3389831"} <= printed


@pytest.mark.parametrize("field", uncheckable.FIELDS)
def test_load_refuses_an_entry_without_a_field(tmp_path, field):
    entry = {k: v for k, v in ENTRY.items() if k != field}
    with pytest.raises(CapkitError, match=f"entry 0 lacks field '{field}'"):
        uncheckable.load(_write(tmp_path, [entry]))


def test_load_refuses_an_empty_value_an_unknown_field_and_a_mapping(tmp_path):
    with pytest.raises(CapkitError, match="lacks field 'reason'"):
        uncheckable.load(_write(tmp_path, [{**ENTRY, "reason": "  "}]))
    with pytest.raises(CapkitError, match=r"unknown field\(s\) \['value'\]"):
        uncheckable.load(_write(tmp_path, [{**ENTRY, "value": 1}]))
    with pytest.raises(CapkitError, match="expected a list"):
        uncheckable.load(_write(tmp_path, ENTRY))
    with pytest.raises(CapkitError, match="entry 1 is not a mapping"):
        uncheckable.load(_write(tmp_path, [ENTRY, "text"]))


def test_load_reads_numbers_as_printed_text(tmp_path):
    (entry,) = uncheckable.load(_write(tmp_path, [{**ENTRY, "printed": 0.55}]))
    assert entry.printed == "0.55"


def test_markdown_groups_by_paper_and_escapes_bars():
    entries = [uncheckable.Uncheckable(**ENTRY),
               uncheckable.Uncheckable(**{**ENTRY, "paper": "SDMetrics, CategoricalCAP",
                                          "row": "a | b", "printed": "0.55"}),
               uncheckable.Uncheckable(**{**ENTRY, "printed": "0.7224124"})]
    text = uncheckable.markdown(entries)
    assert "**3 printed numbers or figures" in text
    hu_head, sdm_head = "### Hu, Methods for Risk", "### SDMetrics, CategoricalCAP"
    assert text.index(hu_head) < text.index(sdm_head)
    hu = text[text.index(hu_head):text.index(sdm_head)]
    assert "0.7228838" in hu and "0.7224124" in hu and "0.55" not in hu
    assert "| ACS example | a \\| b | CAP | 0.55 | no data |" in text


def test_seed_locators_name_paper_table_row_and_column():
    locators = yaml.safe_load((ROOT / "experiments" / "locators_seeds.yaml").read_text())
    assert len(locators) >= 300
    for claim_id, where in locators.items():
        assert set(where) == {"paper", "table", "row", "column"}, claim_id
        assert all(str(v).strip() for v in where.values()), claim_id
        assert where["paper"] in PAPERS | SOFTWARE, claim_id
