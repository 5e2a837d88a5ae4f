import gc
import threading
import time

import pytest

import pyasc as asc
from pyasc.errors import ErrorCode


def test_stream_basics():
    s = asc.Stream()
    t = asc.stream.create_stream()
    assert isinstance(s, asc.Stream) and isinstance(t, asc.stream.Stream)
    assert s.id != t.id
    assert s != t and s == s
    assert s.query()
    s.synchronize()
    assert s.handle != 0
    assert f"id={s.id}" in repr(s)
    assert hash(s) == hash(s.id)


def test_callbacks_run_in_order():
    s = asc.Stream()
    out = []
    for i in range(200):
        s.add_callback(lambda i=i: out.append(i))
    s.synchronize()
    assert out == list(range(200))
    assert s.query()


def test_query_reports_pending_work():
    s = asc.Stream()
    gate = threading.Event()
    s.add_callback(lambda: gate.wait(10))
    assert not s.query()
    gate.set()
    s.synchronize()
    assert s.query()


def test_wait_event_across_streams():
    producer, consumer = asc.Stream(), asc.Stream()
    seen = []
    flag = {"done": False}

    def slow():
        time.sleep(0.1)
        flag["done"] = True

    producer.add_callback(slow)
    e = producer.record_event()
    assert isinstance(e, asc.Event)
    consumer.wait_event(e)
    consumer.add_callback(lambda: seen.append(flag["done"]))
    consumer.synchronize()
    assert seen == [True]


def test_event_wait_method_and_explicit_event():
    a, b = asc.Stream(), asc.Stream()
    flag = []
    e = asc.Event()
    a.add_callback(lambda: (time.sleep(0.05), flag.append("a")))
    assert a.record_event(e) is e
    e.wait(b)
    b.add_callback(lambda: flag.append("b"))
    b.synchronize()
    assert flag == ["a", "b"]


def test_event_timing():
    s = asc.Stream()
    start, end = asc.Event(enable_timing=True), asc.Event(enable_timing=True)
    start.record(s)
    s.add_callback(lambda: time.sleep(0.05))
    end.record(s)
    end.synchronize()
    assert start.query() and end.query()
    ms = start.elapsed_time(end)
    assert ms >= 0
    assert ms >= 40  # the sleep ran between the two markers
    assert start.enable_timing


def test_event_without_timing_cannot_measure():
    s = asc.Stream()
    a, b = asc.Event(enable_timing=False), asc.Event(enable_timing=False)
    a.record(s)
    b.record(s)
    s.synchronize()
    with pytest.raises(asc.AscendValueError):
        a.elapsed_time(b)


def test_unrecorded_event_is_complete():
    e = asc.Event()
    assert e.query()
    e.synchronize()


def test_event_record_on_current_stream():
    s = asc.Stream()
    gate = threading.Event()
    with s:
        s.add_callback(lambda: gate.wait(10))
        e = asc.Event()
        e.record()  # current stream = s
    assert not e.query()
    gate.set()
    e.synchronize()
    assert e.query()


def test_callback_exception_raised_at_synchronize():
    s = asc.Stream()
    ran = []
    s.add_callback(lambda: 1 / 0)
    s.add_callback(lambda: ran.append("after"))
    with pytest.raises(asc.AscendError) as info:
        s.synchronize()
    err = info.value
    assert isinstance(err, asc.AscendRuntimeError) and isinstance(err, RuntimeError)
    assert err.code == ErrorCode.FAILURE
    assert "ZeroDivisionError" in err.message and "host_callback" in err.message
    assert ran == ["after"]  # later work still ran
    # The error was cleared: the stream is usable again.
    s.synchronize()
    s.add_callback(lambda: ran.append("again"))
    s.synchronize()
    assert ran == ["after", "again"]


def test_callback_ascend_error_keeps_its_class():
    s = asc.Stream()

    def bad():
        raise asc.AscendIndexError(ErrorCode.INDEX_OUT_OF_RANGE, "[my_op] index 7 out of range")

    s.add_callback(bad)
    with pytest.raises(asc.AscendIndexError) as info:
        s.synchronize()
    assert info.value.message == "[my_op] index 7 out of range"


def test_first_error_wins():
    s = asc.Stream()

    def first():
        raise KeyError("first")

    s.add_callback(first)
    s.add_callback(lambda: 1 / 0)
    with pytest.raises(asc.AscendRuntimeError, match="KeyError"):
        s.synchronize()


def test_device_synchronize_raises_stream_errors():
    s = asc.Stream()
    s.add_callback(lambda: 1 / 0)
    with pytest.raises(asc.AscendRuntimeError):
        asc.synchronize()
    asc.synchronize()


def test_callbacks_from_many_streams_run_concurrently():
    streams = [asc.Stream() for _ in range(4)]
    barrier = threading.Barrier(len(streams), timeout=10)
    hits = []
    for s in streams:
        s.add_callback(lambda: hits.append(barrier.wait()))
    for s in streams:
        s.synchronize()  # would raise BrokenBarrierError if they ran one by one
    assert sorted(hits) == list(range(len(streams)))


def test_current_stream_context_nesting():
    default = asc.current_stream()
    assert default == asc.default_stream()
    s1, s2 = asc.Stream(), asc.Stream()
    with s1 as entered:
        assert entered is s1
        assert asc.current_stream() == s1
        with s2:
            assert asc.current_stream() == s2
            with s1:
                assert asc.current_stream() == s1
            assert asc.current_stream() == s2
        assert asc.current_stream() == s1
    assert asc.current_stream() == default


def test_context_restores_on_exception():
    default = asc.current_stream()
    s = asc.Stream()
    with pytest.raises(KeyError):
        with s:
            raise KeyError("x")
    assert asc.current_stream() == default


def test_context_exit_out_of_order_is_an_error():
    default = asc.current_stream()
    s1, s2 = asc.Stream(), asc.Stream()
    s1.__enter__()
    s2.__enter__()
    with pytest.raises(asc.AscendValueError):
        s1.__exit__(None, None, None)
    s2.__exit__(None, None, None)
    s1.__exit__(None, None, None)
    assert asc.current_stream() == default


def test_set_current_stream():
    default = asc.current_stream()
    s = asc.Stream()
    asc.set_current_stream(s)
    try:
        assert asc.current_stream() == s
    finally:
        asc.set_current_stream(None)
    assert asc.current_stream() == default


def test_per_thread_default_streams():
    main_default = asc.current_stream()
    s = asc.Stream()
    results = {}

    def worker(name):
        results[name] = (asc.current_stream().id, asc.default_stream().id)

    with s:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    ids = {v[0] for v in results.values()}
    assert len(ids) == 3  # each thread has its own default stream
    assert main_default.id not in ids
    assert s.id not in ids  # `with s` in the main thread does not leak
    assert all(cur == dflt for cur, dflt in results.values())


def test_thread_context_does_not_affect_main():
    main_current = asc.current_stream()
    s = asc.Stream()
    entered = threading.Event()
    leave = threading.Event()

    def worker():
        with s:
            entered.set()
            leave.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    entered.wait(10)
    assert asc.current_stream() == main_current
    leave.set()
    t.join()


def test_destroying_stream_drains_pending_callbacks():
    out = []
    s = asc.Stream()
    s.add_callback(lambda: time.sleep(0.05))
    s.add_callback(lambda: out.append(1))
    del s  # drains with the GIL released: the callbacks need it
    gc.collect()
    assert out == [1]


def test_synchronize_releases_gil():
    # The gate is opened by a Timer thread, which needs the GIL while the main
    # thread blocks in synchronize().
    s = asc.Stream()
    gate = threading.Event()
    s.add_callback(lambda: gate.wait(10))
    timer = threading.Timer(0.05, gate.set)
    timer.start()
    t0 = time.monotonic()
    s.synchronize()
    assert time.monotonic() - t0 < 5
    timer.join()


def test_callback_holding_its_own_stream(run_python):
    # Only the callback's closure keeps the stream alive, so the last reference
    # is dropped on the stream's own worker when the callback is released. The
    # stream must still be destroyed (its worker thread ends), not hang.
    r = run_python(
        """
        import os, threading, time
        import pyasc as asc

        def threads():
            return len(os.listdir("/proc/self/task"))

        out = []

        def make():
            s = asc.Stream()
            gate = threading.Event()
            s.add_callback(lambda: gate.wait(10))
            s.add_callback(lambda: out.append(s.id))
            return gate

        before = threads()
        gate = make()
        with_stream = threads()
        gate.set()
        deadline = time.monotonic() + 10
        while threads() >= with_stream and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(out) == 1, out
        assert threads() < with_stream, (before, with_stream, threads())
        print("ok")
        """,
        timeout=30,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok" in r.stdout


def test_pending_callbacks_at_exit(run_python):
    r = run_python(
        """
        import time
        import pyasc as asc
        s = asc.Stream()
        s.add_callback(lambda: time.sleep(0.1))
        s.add_callback(lambda: print("ran", flush=True))
        asc.current_stream().add_callback(lambda: print("default ran", flush=True))
        """,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    assert "ran" in r.stdout and "default ran" in r.stdout


def test_threads_with_pending_callbacks_exit_cleanly(run_python):
    r = run_python(
        """
        import threading, time
        import pyasc as asc
        out = []
        def worker():
            asc.current_stream().add_callback(lambda: (time.sleep(0.05), out.append(1)))
        ts = [threading.Thread(target=worker) for _ in range(4)]
        for t in ts: t.start()
        for t in ts: t.join()
        time.sleep(0.3)
        print(len(out))
        """,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "4"
