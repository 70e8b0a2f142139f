"""Target parsing."""

import pytest

from graphd import _channel


@pytest.mark.parametrize("given,expected", [
    ("localhost:50051", "localhost:50051"),
    ("grpc://localhost:1234", "localhost:1234"),
    ("grpc://10.0.0.1:99/", "10.0.0.1:99"),
    ("  127.0.0.1:5 ", "127.0.0.1:5"),
    ("myhost", "myhost:50051"),
    ("[::1]:7000", "[::1]:7000"),
    ("[::1]", "[::1]:50051"),
    ("unix:/tmp/graphd.sock", "unix:/tmp/graphd.sock"),
    ("dns:///graphd.svc:50051", "dns:///graphd.svc:50051"),
])
def test_parse_target(given, expected):
    assert _channel.parse_target(given) == expected


@pytest.mark.parametrize("bad", ["", "grpc://", "http://host:1", "host:port", ":123"])
def test_bad_targets(bad):
    with pytest.raises(ValueError):
        _channel.parse_target(bad)


def test_channel_options_allow_1gib():
    opts = dict(_channel.CHANNEL_OPTIONS)
    assert opts["grpc.max_send_message_length"] == 1 << 30
    assert opts["grpc.max_receive_message_length"] == 1 << 30
