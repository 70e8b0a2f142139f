"""Errors stay small enough for clients (issue 17, defect 6): a 390 KiB source line, a
1000-frame RecursionError or an oversized session handle used to be echoed whole into
the status and its detail, and the client got "metadata size exceeds limit" instead of
the error. Messages and details are now bounded and elided in the middle."""

import pytest

import graphd
from graphd.v1 import session_pb2

SERVER_FLAGS = []


def _check_bounded(e):
    assert len(e.message.encode()) <= 1100, len(e.message)
    if e.detail is not None:
        assert e.detail.ByteSize() < 5000, e.detail.ByteSize()


def test_a_huge_source_line_in_an_error(module_server):
    with graphd.connect(module_server.target) as c:
        line = "x = [" + ", ".join(["1"] * 130000) + "] + undefined_name\n"  # ~390 KiB
        with pytest.raises(graphd.errors.OpError) as e:
            c.load_module(line)
        assert "undefined_name" in str(e.value) or "NameError" in str(e.value)
        _check_bounded(e.value)
        assert "elided" in e.value.message or len(e.value.message) < 1000


def test_a_deep_recursion_traceback(module_server):
    with graphd.connect(module_server.target) as c:
        with pytest.raises(graphd.errors.OpError) as e:
            c.load_module("def f(n):\n    return f(n + 1)\nf(0)\n")
        assert "RecursionError" in str(e.value) or "recursion" in e.value.message
        _check_bounded(e.value)
        assert e.value.detail is None or len(e.value.detail.location) <= 8


def test_an_oversized_session_handle(module_server):
    with graphd.connect(module_server.target) as c:
        with pytest.raises(graphd.errors.NotFoundError) as e:
            c.connection.session("Run", session_pb2.RunRequest(session_handle="h" * 200000))
        _check_bounded(e.value)
        assert "not found" in e.value.message
