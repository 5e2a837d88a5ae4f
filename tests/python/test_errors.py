import pickle

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C, errors
from pyasc.errors import ErrorCode

EXPECTED_BUILTIN = {
    ErrorCode.INVALID_PARAM: ValueError,
    ErrorCode.INVALID_FILE: ValueError,
    ErrorCode.INVALID_DTYPE: TypeError,
    ErrorCode.INDEX_OUT_OF_RANGE: IndexError,
    ErrorCode.INVALID_SHAPE: ValueError,
    ErrorCode.LINALG_ERROR: np.linalg.LinAlgError,  # a ValueError subclass
    ErrorCode.OVERFLOW: OverflowError,
    ErrorCode.BAD_ALLOC: MemoryError,
    ErrorCode.API_NOT_SUPPORT: NotImplementedError,
    ErrorCode.INVALID_DEVICE: ValueError,
    ErrorCode.MEMORY_ADDRESS_UNALIGNED: ValueError,
    ErrorCode.INVALID_RESOURCE_HANDLE: ValueError,
    ErrorCode.FEATURE_UNSUPPORTED: NotImplementedError,
    ErrorCode.STORAGE_OVER_LIMIT: MemoryError,
    ErrorCode.RT_PARAM_INVALID: ValueError,
    ErrorCode.RT_INVALID_DEVICE_ID: ValueError,
    ErrorCode.RT_FEATURE_NOT_SUPPORT: NotImplementedError,
    ErrorCode.RT_MEMORY_ALLOCATION: MemoryError,
    ErrorCode.RT_MEMORY_FREE: ValueError,
    ErrorCode.RT_INTERNAL_ERROR: RuntimeError,
    ErrorCode.RT_AICORE_EXCEPTION: RuntimeError,
    ErrorCode.INTERNAL: RuntimeError,
    ErrorCode.FAILURE: RuntimeError,
    ErrorCode.UNINITIALIZE: RuntimeError,
    ErrorCode.REPEAT_INITIALIZE: RuntimeError,
}


def test_codes_are_acl_numbers():
    assert ErrorCode.INVALID_PARAM == 100000
    assert ErrorCode.INVALID_DTYPE == 100090
    assert ErrorCode.INDEX_OUT_OF_RANGE == 100091
    assert ErrorCode.INVALID_SHAPE == 100092
    assert ErrorCode.API_NOT_SUPPORT == 200001
    assert ErrorCode.RT_FEATURE_NOT_SUPPORT == 207000
    assert ErrorCode.RT_MEMORY_ALLOCATION == 207001
    assert ErrorCode.STORAGE_OVER_LIMIT == 300000
    assert ErrorCode.RT_AICORE_EXCEPTION == 507015
    assert _C.error_code_name(100000) == "ACL_ERROR_INVALID_PARAM"


def test_table_covers_every_code():
    codes = set(ErrorCode) - {ErrorCode.SUCCESS}
    assert codes == set(EXPECTED_BUILTIN)
    assert codes == set(errors._CLASS_BY_CODE)


def test_hierarchy():
    for cls, builtin in [
        (asc.AscendValueError, ValueError),
        (asc.AscendTypeError, TypeError),
        (asc.AscendIndexError, IndexError),
        (asc.AscendMemoryError, MemoryError),
        (asc.AscendNotImplementedError, NotImplementedError),
        (asc.AscendRuntimeError, RuntimeError),
    ]:
        assert issubclass(cls, asc.AscendError)
        assert issubclass(cls, builtin)
    assert issubclass(asc.AscendError, Exception)
    assert not issubclass(asc.AscendError, ValueError)


def test_attributes_and_str():
    e = asc.AscendValueError(100092, "[add] shapes (2,) and (3,) do not broadcast")
    assert e.code == ErrorCode.INVALID_SHAPE and e.code == 100092
    assert isinstance(e.code, ErrorCode)
    assert e.message == "[add] shapes (2,) and (3,) do not broadcast"
    assert "[add] shapes" in str(e) and "100092" in str(e)
    unknown = asc.AscendError(123, "x")
    assert unknown.code == 123 and type(unknown.code) is int


def test_pickle_roundtrip():
    e = asc.AscendIndexError(ErrorCode.INDEX_OUT_OF_RANGE, "[getitem] index 5 out of range")
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is asc.AscendIndexError
    assert e2.code == e.code and e2.message == e.message


@pytest.mark.parametrize("code", sorted(EXPECTED_BUILTIN), ids=lambda c: c.name)
def test_translator_for_each_code(code):
    msg = f"[op_{code.name.lower()}] failed"
    with pytest.raises(asc.AscendError) as info:
        _C._testing_raise(int(code), msg)
    e = info.value
    assert isinstance(e, EXPECTED_BUILTIN[code])
    assert type(e) is errors.error_class(code)
    assert e.code == code
    assert e.message == msg


def test_translator_unknown_code():
    with pytest.raises(asc.AscendRuntimeError) as info:
        _C._testing_raise(999999, "[x] odd")
    assert info.value.code == 999999
    assert "ACL_ERROR_UNKNOWN" in str(info.value)


def test_from_code_builds_instances():
    e = errors._from_code(100090, "[astype] bad dtype")
    assert isinstance(e, asc.AscendTypeError) and isinstance(e, TypeError)


def test_real_core_error_is_translated():
    with pytest.raises(asc.AscendValueError) as info:
        _C._testing_free(64)  # never handed out by the pool
    assert info.value.code == ErrorCode.RT_MEMORY_FREE


def test_python_side_validation_uses_same_classes():
    with pytest.raises(asc.AscendValueError) as info:
        asc.set_memory_limit(-1)
    assert info.value.code == ErrorCode.INVALID_PARAM
    with pytest.raises(ValueError):
        asc.set_log_level("loud")
