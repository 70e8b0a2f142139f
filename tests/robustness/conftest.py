"""The fault-injection suite (issue 17): hostile requests against the real server.
Uses the integration suite's server fixtures (start_server, server, target), loaded
under a name of their own so the two conftest modules do not collide."""

import importlib.util
import os

import pytest

_spec = importlib.util.spec_from_file_location(
    "graphd_integration_conftest", os.path.join(os.path.dirname(__file__), "..", "integration", "conftest.py"))
_integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_integration)

server = _integration.server
target = _integration.target
start_server = _integration.start_server
graphd_binary = _integration.graphd_binary
free_port = _integration._free_port


@pytest.fixture(scope="module")
def module_server(request, tmp_path_factory):
    """A graphd of the test module's own, started with its SERVER_FLAGS."""
    proc = _integration.start_graphd(list(getattr(request.module, "SERVER_FLAGS", [])),
                                     tmp_path_factory.mktemp("graphd"))
    yield proc
    proc.stop()
