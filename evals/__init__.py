"""Everyday fixtures for `goliath eval`: the suite (``everyday.py``), its toolsets and world."""
