"""``asc.Struct``: records passed to kernels by value (tiling data).

A subclass lists its fields with :class:`Field` (Python name, C++ member
name, dtype); on the host it is a plain record (``TCubeTiling(m=512, ...)``,
attribute access, equality); as a kernel argument it is copied into the
launch as the C++ struct and its fields read (``tiling.m``) and written
(``tiling.share_l1_size = ...``) in the kernel.
"""

from __future__ import annotations

import ctypes

from ..codegen.context import current
from ..codegen.errors import KernelTypeError
from .core import Value, _scalar, int32

__all__ = ["Struct", "Field", "StructValue"]

_CTYPES = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
           "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
           "float32": ctypes.c_float, "float64": ctypes.c_double, "int1": ctypes.c_bool}


class Field:
    """A struct member: ``dtype``, ``default``, C++ ``name`` (None: not in the C++ struct of the CPU device)."""

    def __init__(self, dtype=int32, default=0, name=None, cpp=True):
        self.dtype, self.default, self.name, self.cpp = dtype, default, name, cpp


class Struct:
    """Base class of kernel-argument records (see the module docstring)."""

    _cpp = ""
    _layout = ()   # C++ member names in the order of the C++ struct (the ctypes layout)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        fields = {}
        for base in reversed(cls.__mro__):
            for k, v in vars(base).items():
                if isinstance(v, Field):
                    fields[k] = v
        cls._fields = fields
        cls._ctype = None

    def __init__(self, **kwargs):
        for k in kwargs:
            if k not in self._fields:
                raise TypeError(f"{type(self).__name__} has no field '{k}'")
        for k, f in self._fields.items():
            object.__setattr__(self, k, kwargs.get(k, f.default))

    def __setattr__(self, k, v):
        if k not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no field '{k}'")
        object.__setattr__(self, k, v)

    def __eq__(self, other):
        return type(other) is type(self) and all(getattr(self, k) == getattr(other, k) for k in self._fields)

    def __repr__(self):
        body = ", ".join(f"{k}={getattr(self, k)}" for k in self._fields if getattr(self, k) != self._fields[k].default)
        return f"{type(self).__name__}({body})"

    @classmethod
    def ctype(cls):
        """The ctypes Structure with the C++ struct's layout."""
        if cls._ctype is None:
            by_cpp = {f.name: f for f in cls._fields.values() if f.name}
            members = [(n, _CTYPES[by_cpp[n].dtype.name] if n in by_cpp else ctypes.c_int32) for n in cls._layout]
            cls._ctype = type(f"_{cls.__name__}_C", (ctypes.Structure,), {"_fields_": members})
        return cls._ctype

    def to_ctype(self):
        """This record as the C++ struct (fields the CPU struct lacks are left out)."""
        c = self.ctype()()
        for k, f in self._fields.items():
            if f.name in self._layout:
                setattr(c, f.name, getattr(self, k))
        return c

    def _key(self):
        return tuple(getattr(self, k) for k in self._fields)


class StructValue(Value):
    """A Struct inside a kernel (a C++ variable of the struct type)."""

    copyable = False

    def cpp_type(self):
        return self.cls._cpp

    def _field(self, name):
        f = self.cls._fields.get(name)
        if f is None:
            raise KernelTypeError(f"{self.cls.__name__} has no field '{name}'")
        if not f.name or f.name not in self.cls._layout:
            raise KernelTypeError(f"{self.cls.__name__}.{name} is not part of the CPU device's {self.cls._cpp} "
                                  "(the field is kept on the host only)")
        return f

    def _getfield(self, name):
        f = self._field(name)
        return _scalar(f"{self.expr}.{f.name}", f.dtype)

    def _setfield(self, name, v):
        f = self._field(name)
        tr = current()
        tr.emit(f"{self.expr}.{f.name} = {tr.cx(v, f.dtype)};")
