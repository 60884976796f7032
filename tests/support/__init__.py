"""Helpers shared by tests of several folders."""
