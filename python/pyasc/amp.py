"""Autocast and mixed precision (``asc.autocast``); see docs/nn.md."""

from __future__ import annotations

__all__: list[str] = []
