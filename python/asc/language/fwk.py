"""The framework objects of the kernel language (hicann/pyasc's ``asc.language.fwk``):
``TPipe``, ``TQue``, ``TQueBind``, ``TBuf``, ``TBufPool``, each one the Ascend C
class of the same name (``AscendC::TPipe`` ...)."""

from __future__ import annotations

from ..codegen.context import builtin, require
from ..codegen.errors import KernelTypeError
from .core import LocalTensor, TPosition, Value, _scalar, dtype_of, int1, int64, uint32

__all__ = ["TPipe", "TQue", "TQueBind", "TBuf", "TBufPool", "get_tpipe_ptr"]


def _const_int(v, what):
    if isinstance(v, Value):
        raise KernelTypeError(f"{what} must be a compile-time integer (a constant or a ConstExpr parameter)")
    return int(v)


class TPipe(Value):
    """``AscendC::TPipe``: owns the core's local memory that queues and buffers get."""

    copyable = False

    def __init__(self):
        tr = require("asc.TPipe")
        name = tr.fresh("pipe")
        tr.emit(f"AscendC::TPipe {name};")
        self._init(name, var=True)

    @builtin
    def init_buffer(self, que=None, num=None, len=None, buf=None):  # noqa: A002 - hicann/pyasc's names
        """``InitBuffer(que, num, len)`` for a queue, ``init_buffer(buf=b, num=len)`` for a TBuf
        (hicann/pyasc passes a TBuf's byte length as ``num``)."""
        tr = require("TPipe.init_buffer")
        if buf is None and isinstance(que, TBuf):
            buf, que = que, None
        if buf is not None:
            length = len if len is not None else num
            tr.emit(f"{self.expr}.InitBuffer({buf.expr}, {tr.cx(length, uint32)});")
            return _scalar("true", int1)
        if not isinstance(que, TQueBind):
            raise KernelTypeError(f"TPipe.init_buffer expects a TQue/TQueBind (or buf=TBuf), got {que!r}")
        tr.emit(f"{self.expr}.InitBuffer({que.expr}, {tr.cx(num, uint32)}, {tr.cx(len, uint32)});")
        return _scalar("true", int1)

    @builtin
    def init_buf_pool(self, pool, len, share_pool=None):  # noqa: A002
        """Gives a TBufPool ``len`` bytes of the pipe's memory."""
        tr = require("TPipe.init_buf_pool")
        pool._bind(tr, self, len)

    @builtin
    def reset(self):
        """``Reset()``: gives back the memory of the queues and buffers."""
        require("TPipe.reset").emit(f"{self.expr}.Reset();")

    @builtin
    def destroy(self):
        """``Destroy()``."""
        require("TPipe.destroy").emit(f"{self.expr}.Destroy();")

    @builtin
    def alloc_event_id(self, event):
        """An event id for ``event`` (``AllocEventID``)."""
        tr = require("TPipe.alloc_event_id")
        return tr.tmp_scalar(f"int64_t({self.expr}.AllocEventID<{event.cpp}>())", int64, "event")

    @builtin
    def fetch_event_id(self, event):
        """An event id for ``event`` (``FetchEventID``)."""
        tr = require("TPipe.fetch_event_id")
        return tr.tmp_scalar(f"int64_t({self.expr}.FetchEventID({event.cpp}))", int64, "event")

    @builtin
    def release_event_id(self, event, event_id):
        """Nothing to release on the CPU device."""
        return None


class TQueBind(Value):
    """``AscendC::TQueBind<src, dst, depth>``: a queue of local tensors between two positions."""

    copyable = False
    _cls = "TQueBind"

    def __init__(self, src, dst=None, depth=1, mask=0):
        tr = require(f"asc.{self._cls}")
        self.src, self.dst = src, dst if dst is not None else src
        self.depth_ = _const_int(depth, "a queue's depth")
        name = tr.fresh("que")
        tr.emit(f"{self._cpp()} {name};")
        self._init(name, var=True)

    def _cpp(self):
        return f"AscendC::TQueBind<{self.src.cpp}, {self.dst.cpp}, {self.depth_}>"

    @builtin
    def alloc_tensor(self, dtype, shape=None):
        """A free buffer of the queue as a LocalTensor of ``dtype``."""
        tr = require("alloc_tensor")
        d = dtype_of(dtype)
        name = tr.fresh("local")
        tr.emit(f"AscendC::LocalTensor<{d.cpp}> {name} = {self.expr}.template AllocTensor<{d.cpp}>();")
        return LocalTensor._make(name, var=True, dtype=d)

    @builtin
    def enque(self, tensor):
        """Puts ``tensor`` in the queue."""
        tr = require("enque")
        tr.emit(f"{self.expr}.EnQue({tensor.expr});")
        return _scalar("true", int1)

    @builtin
    def deque(self, dtype, shape=None):
        """Takes the oldest tensor out of the queue (as ``dtype``)."""
        tr = require("deque")
        d = dtype_of(dtype)
        name = tr.fresh("local")
        tr.emit(f"AscendC::LocalTensor<{d.cpp}> {name} = {self.expr}.template DeQue<{d.cpp}>();")
        return LocalTensor._make(name, var=True, dtype=d)

    @builtin
    def free_tensor(self, tensor):
        """Gives the tensor's buffer back to the queue."""
        require("free_tensor").emit(f"{self.expr}.FreeTensor({tensor.expr});")

    @builtin
    def vacant_in_que(self):
        """Whether another tensor can be enqueued."""
        return _scalar(f"{self.expr}.VacantInQue()", int1)

    @builtin
    def has_tensor_in_que(self):
        """Whether a tensor is enqueued."""
        return _scalar(f"{self.expr}.HasTensorInQue()", int1)

    @builtin
    def get_tensor_count_in_que(self):
        """Number of enqueued tensors."""
        return _scalar(f"int64_t({self.expr}.GetTensorCountInQue())", int64)

    @builtin
    def has_idle_buffer(self):
        """Whether a buffer is free for alloc_tensor."""
        return _scalar(f"{self.expr}.HasIdleBuffer()", int1)

    @builtin
    def free_all_event(self):
        """``FreeAllEvent()`` (nothing to free on the CPU)."""
        require("free_all_event").emit(f"{self.expr}.FreeAllEvent();")


class TQue(TQueBind):
    """``AscendC::TQue<pos, depth>``."""

    _cls = "TQue"

    def __init__(self, pos, depth=1, mask=0):
        super().__init__(pos, pos, depth, mask)

    def _cpp(self):
        return f"AscendC::TQue<{self.src.cpp}, {self.depth_}>"


class TBuf(Value):
    """``AscendC::TBuf<pos>``: a buffer without queue semantics (temporaries)."""

    copyable = False

    def __init__(self, pos=TPosition.VECCALC):
        tr = require("asc.TBuf")
        self.pos = pos
        name = tr.fresh("tbuf")
        tr.emit(f"AscendC::TBuf<{pos.cpp}> {name};")
        self._init(name, var=True)

    @builtin
    def get(self, dtype, len=None):  # noqa: A002
        """The buffer (or its first ``len`` elements) as a LocalTensor of ``dtype``."""
        tr = require("TBuf.get")
        d = dtype_of(dtype)
        arg = "" if len is None else tr.cx(len, uint32)
        return LocalTensor._make(f"{self.expr}.template Get<{d.cpp}>({arg})", dtype=d)

    alloc_tensor = get

    @builtin
    def get_with_offset(self, dtype, size, buf_offset):
        """``size`` elements of ``dtype`` at byte ``buf_offset`` of the buffer."""
        tr = require("TBuf.get_with_offset")
        d = dtype_of(dtype)
        return LocalTensor._make(f"{self.expr}.template GetWithOffset<{d.cpp}>({tr.cx(size, uint32)}, "
                                 f"{tr.cx(buf_offset, uint32)})", dtype=d)

    @builtin
    def free_tensor(self, tensor):
        """Nothing to give back (a TBuf is not a queue)."""
        return None


class TBufPool(Value):
    """A part of a TPipe's memory for its own queues and buffers (``init_buffer``)."""

    copyable = False

    def __init__(self, pos=TPosition.VECCALC, buf_id_size=4):
        tr = require("asc.TBufPool")
        self._init(tr.fresh("pool"), var=True)
        self.pipe = None

    def _bind(self, tr, pipe, length):
        self.pipe = pipe

    @builtin
    def init_buffer(self, que=None, num=None, len=None, buf=None):  # noqa: A002
        """As TPipe.init_buffer, from the pool's pipe."""
        if self.pipe is None:
            raise KernelTypeError("TBufPool.init_buffer before TPipe.init_buf_pool")
        return self.pipe.init_buffer(que, num, len, buf)

    @builtin
    def reset(self):
        """``Reset()``: gives back the memory of the queues and buffers."""
        return None


@builtin
def get_tpipe_ptr():
    """The TPipe of the running kernel (``GetTPipePtr()``)."""
    return Value._make("(*AscendC::GetTPipePtr())", var=False)
