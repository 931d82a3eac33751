"""Attacks: an intruder's inference as a classifier (Hittmeir, Mayer & Ekelhart 2020), with the
membership control that tells disclosure from inference anyone could make. Names only."""

from capkit.attacks.attackers import DEFAULT_ATTACKERS, REGISTRY, Attacker
from capkit.attacks.attribute import AttackResult, GroupScore, attribute_attack
from capkit.attacks.baseline import baseline_summary, baseline_table

__all__ = [
    "DEFAULT_ATTACKERS",
    "REGISTRY",
    "AttackResult",
    "Attacker",
    "GroupScore",
    "attribute_attack",
    "baseline_summary",
    "baseline_table",
]
