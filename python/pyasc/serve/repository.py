"""The model repository: loading, versions, reload and unload.

A load builds the new state of a model *next to* the serving one (versions whose files and
config did not change are reused, new ones load) and swaps it in one assignment when every
version is ready; traffic moves then. If anything fails the old state keeps serving and
the failure is reported (``repository/index`` reason, the load call's error). Retired
versions drain their in-flight requests before their backend is closed, so their memory
goes back to the pool (``asc.empty_cache()`` then returns it to the system).

Model names are checked by :func:`config.validate_name` before any path is built, and the
model directory's real path must lie inside the repository's (symlinks out are refused).
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time

from . import config as _config
from .backends import create_backend
from .batcher import DirectScheduler, DynamicBatcher
from .errors import InvalidArgumentError, NotFoundError, ServeError, UnavailableError

log = logging.getLogger("pyasc.serve")

__all__ = ["ModelVersion", "ModelEntry", "ModelRepository"]

_MAX_FILES = 10000


class ModelVersion:
    """One loaded version: backend, scheduler, in-flight count."""

    def __init__(self, name, version, backend, cfg, stats, fingerprint):
        self.name = name
        self.version = version
        self.backend = backend
        self.config = cfg
        self.stats = stats
        self.fingerprint = fingerprint
        count = sum(g.count for g in cfg.instance_group) or _default_instances()
        if cfg.HasField("dynamic_batching") and cfg.max_batch_size > 0:
            db = cfg.dynamic_batching
            self.scheduler = DynamicBatcher(backend, stats, count, cfg.max_batch_size, list(db.preferred_batch_size),
                                            db.max_queue_delay_microseconds, name=f"{name}-{version}")
        else:
            self.scheduler = DirectScheduler(backend, stats, count)
        self._inflight = 0
        # enter/leave run twice per request: a plain (C) lock; the condition is waited on only
        # by retire(), and leave() notifies only while a retire() waits (``_retiring``).
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._retiring = False
        # what request validation needs, resolved once: name -> (datatype, dims, optional)
        from . import _dtypes

        # (datatype, dims, optional, dims as a tuple when none is -1 else None)
        self.input_specs = {i.name: (_dtypes.config_to_datatype(_type_name(i.data_type)), [int(d) for d in i.dims],
                                     i.optional, None if any(d == -1 for d in i.dims) else tuple(int(d) for d in i.dims))
                            for i in cfg.input}
        self.output_names = [o.name for o in cfg.output]
        self.output_set = frozenset(self.output_names)

    def enter(self):
        with self._lock:
            self._inflight += 1

    def leave(self):
        with self._lock:
            self._inflight -= 1
            if self._retiring and self._inflight == 0:
                self._cv.notify_all()

    def retire(self, timeout=60.0):
        """Waits up to ``timeout`` seconds for in-flight requests, then frees the backend; True.

        False when requests are still in the model then (a call that never returns): the
        backend is left to them (freeing it under a running call would be a use-after-free)
        and the scheduler stops taking requests without waiting for its threads."""
        with self._cv:
            self._retiring = True
            drained = self._cv.wait_for(lambda: self._inflight == 0, max(0.0, timeout))
        if not drained:
            self.scheduler.close(timeout=0.0)
            return False
        self.scheduler.close()
        self.backend.close()
        return True


def _malloc_trim():
    """Hands freed heap back to the system. Loads run on whichever server thread called, and
    glibc keeps a freed model's host memory in that thread's arena; without a trim, RSS after
    load/unload cycles keeps the high-water mark of every arena that ever held a model."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def _type_name(value):
    from . import _proto

    return _proto.data_type_enum().values_by_number[value].name


def _default_instances():
    try:
        from .. import device

        return max(1, int(device.get_device_properties().num_cores))
    except Exception:  # noqa: BLE001 - a device that cannot say gets one slot per CPU
        return os.cpu_count() or 1


class ModelEntry:
    """A model as served: its config and loaded versions (highest first)."""

    def __init__(self, name, cfg, versions, config_fp, kind):
        self.name = name
        self.config = cfg
        self.versions = versions  # int -> ModelVersion
        self.config_fp = config_fp
        self.kind = kind
        self.arms = _config.ab_split(cfg)

    @property
    def latest(self):
        return self.versions[max(self.versions)]


class ModelRepository:
    """The models under ``root`` and their serving state."""

    def __init__(self, root, stats_registry, on_change=None):
        self.root = os.path.realpath(root)
        if not os.path.isdir(self.root):
            raise InvalidArgumentError(f"model repository '{root}' is not a directory")
        self._stats = stats_registry
        self._models = {}  # name -> ModelEntry (serving)
        self._failed = {}  # name -> reason of the last failed load
        self._lock = threading.Lock()  # one load/unload at a time (loads can be slow; reads never wait)
        self._retiring = []
        self._failed_fp = {}  # name -> directory fingerprint of a failed load (poll retries on change)
        self._on_change = on_change

    # ---------------------------------------------------------------- paths

    def model_dir(self, name):
        _config.validate_name(name)
        path = os.path.join(self.root, name)
        real = os.path.realpath(path)
        if os.path.dirname(real) != self.root:
            raise InvalidArgumentError(f"model '{name}': its directory resolves outside the repository")
        return real

    def names(self):
        """Valid model directory names in the repository."""
        out = []
        for n in sorted(os.listdir(self.root)):
            try:
                if os.path.isdir(self.model_dir(n)):
                    out.append(n)
            except InvalidArgumentError:
                continue
        return out

    @staticmethod
    def _fingerprint(path):
        items = []
        for dirpath, dirs, files in os.walk(path):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                items.append((os.path.relpath(p, path), st.st_size, st.st_mtime_ns))
                if len(items) > _MAX_FILES:
                    raise InvalidArgumentError(f"{path}: more than {_MAX_FILES} files")
        return tuple(items)

    def _config_fp(self, mdir):
        p = os.path.join(mdir, "config.pbtxt")
        try:
            st = os.stat(p)
            return (st.st_size, st.st_mtime_ns)
        except OSError:
            return None

    @staticmethod
    def _version_dirs(mdir):
        out = {}
        for n in os.listdir(mdir):
            if n.isdigit() and os.path.isdir(os.path.join(mdir, n)):
                v = int(n)
                if v > 0:
                    out[v] = os.path.join(mdir, n)
        return out

    @staticmethod
    def _select(cfg, available):
        vs = sorted(available, reverse=True)
        pol = cfg.version_policy
        which = pol.WhichOneof("policy_choice")
        if which == "all":
            return vs
        if which == "specific":
            want = list(pol.specific.versions)
            missing = [v for v in want if v not in available]
            if missing:
                raise InvalidArgumentError(f"model '{cfg.name}': version_policy specific names version(s) {missing}, "
                                           f"which the repository does not have (it has {sorted(available)})")
            return sorted(want, reverse=True)
        n = pol.latest.num_versions if which == "latest" else 1
        return vs[:max(1, n)]

    # ---------------------------------------------------------------- queries

    def get(self, name):
        """The serving ModelEntry of ``name`` (NotFoundError / UnavailableError)."""
        entry = self._models.get(name)
        if entry is None:
            reason = self._failed.get(name)
            if reason is not None:
                raise UnavailableError(f"model '{name}' is not ready: {reason}")
            raise NotFoundError(f"Request for unknown model: '{name}' is not found")
        return entry

    def get_version(self, name, version=""):
        """The ModelVersion for a request ('' = the highest loaded version)."""
        entry = self.get(name)
        if not version:
            return entry.latest
        try:
            v = int(version)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"model '{name}': invalid version '{version}'") from None
        mv = entry.versions.get(v)
        if mv is None:
            raise NotFoundError(f"Request for unknown model: '{name}' version {v} is not found (loaded: "
                                f"{sorted(entry.versions)})")
        return mv

    def index(self, ready_only=False):
        """Triton's repository index: one row per model (and per loaded version)."""
        rows = []
        names = set(self.names()) | set(self._models)
        for n in sorted(names):
            entry = self._models.get(n)
            if entry is not None:
                for v in sorted(entry.versions):
                    rows.append({"name": n, "version": str(v), "state": "READY", "reason": ""})
            elif not ready_only:
                reason = self._failed.get(n)
                rows.append({"name": n, "version": "", "state": "UNAVAILABLE",
                             "reason": reason if reason is not None else "unloaded"})
        return rows

    def loaded(self):
        return dict(self._models)

    # ---------------------------------------------------------------- load / unload

    def load(self, name, config_text=None):
        """Loads or reloads ``name`` (``config_text``: an override config, protobuf text or JSON).

        On failure the previous state keeps serving and the error is raised."""
        mdir = self.model_dir(name)
        with self._lock:
            try:
                entry = self._build(name, mdir, config_text)
            except ServeError as e:
                self._failed[name] = e.message
                raise
            except Exception as e:  # noqa: BLE001 - a model's loader failed; keep serving the old one
                self._failed[name] = f"{type(e).__name__}: {e}"
                raise InvalidArgumentError(f"failed to load '{name}': {type(e).__name__}: {e}") from None
            old = self._models.get(name)
            self._models[name] = entry  # the switch: new requests see the new versions from here on
            self._failed.pop(name, None)
            if old is not None:
                gone = [mv for v, mv in old.versions.items() if entry.versions.get(v) is not mv]
                self._retire(gone)
        if self._on_change:
            self._on_change(name)
        return entry

    def unload(self, name):
        """Stops serving ``name``; its versions drain and free their memory."""
        _config.validate_name(name)
        with self._lock:
            old = self._models.pop(name, None)
            self._failed.pop(name, None)
            if old is None:
                return False
            self._retire(list(old.versions.values()), wait=True)
        if self._on_change:
            self._on_change(name)
        return True

    def _retire(self, versions, wait=False, timeout=60.0):
        if not versions:
            return

        def work():
            end = time.monotonic() + timeout
            for mv in versions:
                if not mv.retire(end - time.monotonic()):
                    log.warning("pyasc-serve: model '%s' version %s still had %d call(s) running %.1f s into its "
                                "retirement; they are abandoned (their threads end with the call) and its backend "
                                "is not freed", mv.name, mv.version, mv._inflight, timeout)
            gc.collect()
            try:
                from .. import memory

                memory.empty_cache()
            except Exception:  # noqa: BLE001 - returning cached memory is best effort
                pass
            _malloc_trim()

        if wait:
            work()
        else:
            t = threading.Thread(target=work, name="pyasc-serve-retire", daemon=True)
            t.start()
            self._retiring = [x for x in self._retiring if x.is_alive()] + [t]

    def wait_retired(self, timeout=60.0):
        """Waits for background retirements (tests, shutdown)."""
        for t in list(self._retiring):
            t.join(timeout)

    def _build(self, name, mdir, config_text):
        if not os.path.isdir(mdir):
            raise NotFoundError(f"failed to load '{name}': no model directory '{name}' in the repository")
        if config_text is not None:
            cfg = _parse_override(config_text, name)
        else:
            cfg = _config.read_config(mdir, name)
        available = self._version_dirs(mdir)
        if not available:
            raise InvalidArgumentError(f"failed to load '{name}': no version directories (1, 2, ...) in {mdir}")
        selected = self._select(cfg, available)
        kind = _config.kind_of(cfg, available[selected[0]])
        fname = _config.default_filename(cfg, kind)
        cfg_fp = (self._config_fp(mdir), config_text)
        old = self._models.get(name)
        versions = {}
        try:
            cfg = self._load_versions(name, mdir, cfg, kind, fname, available, selected, old, cfg_fp, versions)
        except BaseException:
            # a failed load frees what it loaded; the serving versions are untouched
            for v, mv in versions.items():
                if old is None or old.versions.get(v) is not mv:
                    mv.retire(timeout=0)
            raise
        if not cfg.platform and not cfg.backend:
            cfg.platform = {"onnx": "onnxruntime_onnx", "om": "pyasc_om", "oplib": "pyasc_op"}.get(kind, "")
            cfg.backend = {"onnx": "onnxruntime", "python": "python", "om": "pyasc_om", "oplib": "pyasc_op"}[kind]
        return ModelEntry(name, cfg, versions, cfg_fp, kind)

    def _load_versions(self, name, mdir, cfg, kind, fname, available, selected, old, cfg_fp, versions):
        filled = False
        for v in selected:
            vdir = available[v]
            fp = self._fingerprint(vdir)
            prev = old.versions.get(v) if old is not None else None
            if prev is not None and prev.fingerprint == fp and old.config_fp == cfg_fp:
                versions[v] = prev
                continue
            t0 = time.perf_counter()
            backend = create_backend(kind, os.path.join(vdir, fname), cfg, mdir, v, _config.config_to_dict(cfg))
            if not filled:
                _complete(cfg, backend, kind)
                filled = True
            stats = self._stats.get(name, v)
            mv = ModelVersion(name, v, backend, cfg, stats, fp)
            stats.load_secs = time.perf_counter() - t0
            versions[v] = mv
        return cfg if filled else old.config

    # ---------------------------------------------------------------- polling

    def poll_once(self):
        """One scan (poll mode): loads new and changed models, unloads removed ones.
        Returns {name: 'loaded' | 'unloaded' | 'failed: ...'} for what changed."""
        changes = {}
        present = set(self.names())
        for name in sorted(present):
            entry = self._models.get(name)
            mdir = self.model_dir(name)
            fp = self._dir_fp(mdir)
            if name in self._failed_fp and self._failed_fp[name] == fp:
                continue  # failed before and nothing changed since: do not retry every poll
            try:
                if entry is not None and not self._changed(entry, mdir):
                    continue
                self.load(name)
                self._failed_fp.pop(name, None)
                changes[name] = "loaded"
            except ServeError as e:
                self._failed_fp[name] = fp
                changes[name] = f"failed: {e.message}"
        for name in list(self._models):
            if name not in present:
                self.unload(name)
                changes[name] = "unloaded"
        return changes

    def _dir_fp(self, mdir):
        try:
            return self._fingerprint(mdir)
        except (OSError, ServeError):
            return None

    def _changed(self, entry, mdir):
        if (self._config_fp(mdir), None) != entry.config_fp:
            return True
        try:
            available = self._version_dirs(mdir)
            selected = self._select(entry.config, available)
        except (OSError, ServeError):
            return True
        if sorted(selected) != sorted(entry.versions):
            return True
        return any(self._fingerprint(available[v]) != entry.versions[v].fingerprint for v in selected)

    def close(self, timeout=60.0):
        """Retires every model, waiting at most ``timeout`` seconds for calls in flight (calls
        still running then are abandoned, see :meth:`ModelVersion.retire`)."""
        # Every version of every model in one retirement: one gc pass, one empty_cache, one
        # malloc_trim for the lot. A full gc pass costs time in proportion to the whole
        # process's live objects, not the model's: one per model made Server.stop() take 10 s
        # (4 models) in the test suite's big process, and N passes for N models in any host.
        end = time.monotonic() + timeout
        with self._lock:
            models, self._models = self._models, {}
            self._retire([mv for entry in models.values() for mv in entry.versions.values()], wait=True,
                         timeout=timeout)
        self.wait_retired(max(0.0, end - time.monotonic()))


def _parse_override(text, name):
    import json

    from google.protobuf import json_format

    cfg = _config.ModelConfig()
    try:
        json_format.Parse(text, cfg) if text.lstrip().startswith("{") else None
    except (json_format.ParseError, json.JSONDecodeError) as e:
        raise InvalidArgumentError(f"load '{name}': invalid config override: {e}") from None
    if not text.lstrip().startswith("{"):
        cfg = _config.parse_config(text, f"config override of '{name}'")
    if cfg.name and cfg.name != name:
        raise InvalidArgumentError(f"load '{name}': config override names model '{cfg.name}'")
    cfg.name = name
    return cfg


def _complete(cfg, backend, kind):
    """Fills inputs/outputs a config leaves out from the model itself (Triton's auto-complete)."""
    from . import _dtypes

    batch = 1 if cfg.max_batch_size > 0 else 0
    if not cfg.input:
        for s in backend.inputs:
            i = cfg.input.add(name=s.name, dims=s.shape[batch:])
            i.data_type = _config_type(_dtypes.datatype_to_config(s.datatype))
    if not cfg.output:
        for s in backend.outputs:
            o = cfg.output.add(name=s.name, dims=s.shape[batch:])
            o.data_type = _config_type(_dtypes.datatype_to_config(s.datatype))


def _config_type(name):
    from . import _proto

    return _proto.data_type_enum().values_by_name[name].number
