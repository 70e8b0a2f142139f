"""Unit tests for the graphd Python client (no graphd server needed)."""

import os
import sys

import pytest

_PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PKG_ROOT not in sys.path:
    sys.path.insert(0, _PKG_ROOT)

if not os.path.exists(os.path.join(_PKG_ROOT, "graphd", "v1", "session_pb2.py")):
    pytest.exit("graphd's generated protobuf modules are missing: run `make build` "
                "(it runs protoc for clients/python)", returncode=2)


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    """Each test builds into its own default graph."""
    import graphd.v1 as tf
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
