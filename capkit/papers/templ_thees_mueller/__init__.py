"""Templ, Thees & Müller, "RAPID: Risk of Attribute Prediction-Induced Disclosure in Synthetic
Microdata" (arXiv 2602.09235, 2026): the simulation's data-generating process
(:mod:`~.simulate`) and the CART attacker of Simulation 4 (:mod:`~.attackers`). The measure
itself is :mod:`capkit.attacks.rapid`. Names only."""

from capkit.papers.templ_thees_mueller.attackers import RPART, RpartClassifier
from capkit.papers.templ_thees_mueller.simulate import simulate_microdata

__all__ = ["RPART", "RpartClassifier", "simulate_microdata"]
