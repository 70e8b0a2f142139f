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

# Everything the integration conftest defines, fixtures and helpers alike: test modules
# of both suites say `from conftest import ...`, and whichever conftest pytest loaded
# last answers to that name.
for _name in dir(_integration):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_integration, _name)


@pytest.fixture(scope="module")
def module_server(request, tmp_path_factory):
    """A graphd of the test module's own, started with its SERVER_FLAGS."""
    proc = _integration.start_graphd(list(getattr(request.module, "SERVER_FLAGS", [])),
                                     tmp_path_factory.mktemp("graphd"))
    yield proc
    proc.stop()
