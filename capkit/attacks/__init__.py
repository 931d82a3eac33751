"""Attacks: an intruder's inference as a classifier, and the membership control that tells
disclosure from inference anyone could make. Names only."""

__all__: list[str] = []
