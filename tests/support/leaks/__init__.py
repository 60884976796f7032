"""The leak audit: random and tabled corpora written at every scope, every read path probed,
and what each reader saw checked against the stored ground truth (read ``audit`` first)."""
