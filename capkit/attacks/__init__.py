"""Attacks: an intruder's inference as a classifier (Hittmeir, Mayer & Ekelhart 2020), singling
out and linkability, RAPID (Templ, Thees & Müller 2026), each with the membership control that
tells disclosure from inference anyone could make. Names only."""

import lazy_loader

# Names resolved on first use (lazy_loader): a search over record pairs (linkability, singling
# out) imports without the attackers' scikit-learn.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "attackers": ["DEFAULT_ATTACKERS", "REGISTRY", "Attacker"],
    "attribute": ["AttackResult", "GroupScore", "attribute_attack"],
    "baseline": ["baseline_summary", "baseline_table"],
    "inference_attack": ["InferenceResult", "inference_attack"],
    "linkability": ["LinkabilityResult", "linkability"],
    "queries": ["match_counts"],
    "rapid": ["RapidResult", "rapid"],
    "rapid_cv": ["RapidCV", "rapid_cv"],
    "singling_out": ["SinglingOutResult", "singling_out"],
})
