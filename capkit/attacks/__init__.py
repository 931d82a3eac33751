"""Attacks: an intruder's inference as a classifier (Hittmeir, Mayer & Ekelhart 2020), singling
out and linkability, RAPID (Templ, Thees & Müller 2026), each with the membership control that
tells disclosure from inference anyone could make. Names only."""

from capkit.attacks.attackers import DEFAULT_ATTACKERS, REGISTRY, Attacker
from capkit.attacks.attribute import AttackResult, GroupScore, attribute_attack
from capkit.attacks.baseline import baseline_summary, baseline_table
from capkit.attacks.inference_attack import InferenceResult, inference_attack
from capkit.attacks.linkability import LinkabilityResult, linkability
from capkit.attacks.queries import match_counts
from capkit.attacks.rapid import RapidResult, rapid
from capkit.attacks.rapid_cv import RapidCV, rapid_cv
from capkit.attacks.singling_out import SinglingOutResult, singling_out

__all__ = [
    "DEFAULT_ATTACKERS",
    "REGISTRY",
    "AttackResult",
    "Attacker",
    "GroupScore",
    "InferenceResult",
    "LinkabilityResult",
    "RapidCV",
    "RapidResult",
    "SinglingOutResult",
    "attribute_attack",
    "baseline_summary",
    "baseline_table",
    "inference_attack",
    "linkability",
    "match_counts",
    "rapid",
    "rapid_cv",
    "singling_out",
]
