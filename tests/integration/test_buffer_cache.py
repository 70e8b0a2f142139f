"""The cache of freed tensor storage (--buffer-cache-mb, core/buffer_cache.h): calls
reuse the blocks earlier calls freed and still compute the right values, the cache
stays within its capacity (at most an eighth of --memory-limit), and it is emptied
when a session closes; with --buffer-cache-mb 0 nothing is kept."""

import urllib.request

import numpy as np

import graphd
from conftest import _free_port

MiB = 1 << 20

SOURCE = ("import tensorflow as tf\n"
          "@tf.function\n"
          "def f(x):\n"
          "    y = tf.matmul(x, x)\n"
          "    return tf.tanh(y * 0.01) + tf.reduce_sum(x, axis=1, keepdims=True)\n")


def _metrics(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30) as r:
        text = r.read().decode()
    return {name: float(value) for name, value in
            (line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))}


def _want(x):
    return np.tanh((x @ x) * 0.01) + x.sum(axis=1, keepdims=True)


def test_calls_reuse_freed_storage_within_the_capacity(start_server):
    port = _free_port()
    server = start_server("--memory-limit", "512M", "--metrics-listen", "127.0.0.1:%d" % port)
    m = _metrics(port)
    # 1024 MiB by default, but no more than an eighth of the 512 MiB budget.
    assert m["graphd_tensor_buffer_cache_capacity_bytes"] == 64 * MiB
    rng = np.random.default_rng(3)
    c = graphd.connect(server.target)
    module = c.load_module(SOURCE)
    for i in range(6):
        x = rng.standard_normal((256, 256)).astype(np.float32)  # 256 KiB blocks
        np.testing.assert_allclose(module.f(x), _want(x), rtol=1e-4, atol=1e-4)
    held = _metrics(port)["graphd_tensor_buffer_cache_bytes"]
    assert 256 * 1024 <= held <= 64 * MiB, held
    assert _metrics(port)["graphd_tensor_memory_bytes"] < 256 * 1024  # cached blocks are charged to no one
    c.close()
    assert _metrics(port)["graphd_tensor_buffer_cache_bytes"] == 0


def test_a_zero_capacity_keeps_nothing(start_server):
    port = _free_port()
    server = start_server("--buffer-cache-mb", "0", "--metrics-listen", "127.0.0.1:%d" % port)
    rng = np.random.default_rng(4)
    with graphd.connect(server.target) as c:
        module = c.load_module(SOURCE)
        for _ in range(4):
            x = rng.standard_normal((256, 256)).astype(np.float32)
            np.testing.assert_allclose(module.f(x), _want(x), rtol=1e-4, atol=1e-4)
        m = _metrics(port)
        assert m["graphd_tensor_buffer_cache_capacity_bytes"] == 0
        assert m["graphd_tensor_buffer_cache_bytes"] == 0
