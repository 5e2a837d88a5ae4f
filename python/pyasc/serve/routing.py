"""The A/B routing file (``--ab-routing-file``): traffic splits kept outside the model configs.

A JSON object mapping a model name to its split, either in ``ab_split``'s syntax or as an
object of arm -> weight::

    {"ranker": "1:90,2:10", "scorer": {"scorer/3": 50, "scorer_v2": 50}}

A model named here routes by the file's split instead of its config's ``ab_split``; the others
keep theirs. The file is read as JSON only (never executed), bounded in size, and re-read when
it changes (:meth:`RoutingTable.refresh`, called by the server every second): a file that
fails to parse or validate keeps the previous table serving and records the reason in
``error`` (logged once per bad version of the file); a removed file means no overrides.
"""

from __future__ import annotations

import json
import logging
import os
import threading

from .config import parse_ab_split, validate_name
from .errors import InvalidArgumentError

__all__ = ["RoutingTable", "MAX_ROUTING_FILE_BYTES"]

MAX_ROUTING_FILE_BYTES = 1 << 20
log = logging.getLogger("pyasc.serve")


def _parse(text, path):
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise InvalidArgumentError(f"A/B routing file {path}: not valid JSON ({e})") from None
    if not isinstance(doc, dict):
        raise InvalidArgumentError(f"A/B routing file {path}: expected a JSON object of model -> split, got "
                                   f"{type(doc).__name__}")
    table = {}
    for model, split in doc.items():
        try:
            validate_name(model)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"A/B routing file {path}: {e.message}") from None
        if isinstance(split, dict):
            items = []
            for arm, w in split.items():
                if isinstance(w, bool) or not isinstance(w, (int, float)):
                    raise InvalidArgumentError(f"A/B routing file {path}: model '{model}': weight of arm '{arm}' "
                                               f"must be a number, not {json.dumps(w)}")
                items.append(f"{arm}:{w}")
            split = ",".join(items)
        if not isinstance(split, str) or not split.strip():
            raise InvalidArgumentError(f"A/B routing file {path}: model '{model}': the split must be a non-empty "
                                       f"string like \"1:90,2:10\" or an object of arm -> weight")
        try:
            table[model] = parse_ab_split(model, split)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"A/B routing file {path}: {e.message}") from None
    return table


class RoutingTable:
    """The splits of a routing file; ``arms(model)`` is None for a model the file does not name."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.error = None
        self._table = {}
        self._stamp = None
        self._lock = threading.Lock()
        if not os.path.isfile(self.path):
            raise InvalidArgumentError(f"A/B routing file {self.path}: no such file")
        self.refresh()
        if self.error:
            raise InvalidArgumentError(self.error)

    def arms(self, model):
        return self._table.get(model)

    def snapshot(self):
        """model -> [((model, version), weight)] as served now."""
        return dict(self._table)

    def refresh(self):
        """Re-reads the file if it changed; returns True when the table changed."""
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                changed = bool(self._table)
                self._table, self._stamp, self.error = {}, None, None
                return changed
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            try:
                if st.st_size > MAX_ROUTING_FILE_BYTES:
                    raise InvalidArgumentError(f"A/B routing file {self.path}: {st.st_size} bytes, more than the "
                                               f"limit of {MAX_ROUTING_FILE_BYTES}")
                with open(self.path, encoding="utf-8") as f:
                    text = f.read(MAX_ROUTING_FILE_BYTES + 1)
                table = _parse(text, self.path)
            except (InvalidArgumentError, OSError, UnicodeDecodeError) as e:
                self.error = getattr(e, "message", None) or f"A/B routing file {self.path}: {e}"
                log.error("pyasc-serve: %s; the previous routing stays", self.error)
                return False
            self.error = None
            changed = table != self._table
            self._table = table  # one reference swap: readers see the old or the new table
            return changed
