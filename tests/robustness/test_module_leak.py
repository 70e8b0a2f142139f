"""Loading a module that defines functions and closing its session gives the memory
back (issue 17, defect 3: ~46 KiB per load leaked, a reference cycle between a
module's functions and its globals)."""

import graphd
from conftest import rss_kib

SERVER_FLAGS = ["--audit-log", "off"]

SOURCE = ("import tensorflow as tf\n"
          "scale = [1.0, 2.0, 3.0]\n"
          "def helper(x, k=[0]):\n"
          "    return x * scale[0]\n"
          "def outer():\n"
          "    def inner():\n"
          "        return inner\n"
          "    return inner\n"
          "class Model:\n"
          "    def __init__(self):\n"
          "        self.w = 2.0\n"
          "    def apply(self, x):\n"
          "        return helper(x) * self.w\n"
          "m = Model()\n"
          "keep = outer()\n"
          "@tf.function\n"
          "def f(x):\n"
          "    return m.apply(x) + 1.0\n")


def _cycles(target, n):
    for i in range(n):
        with graphd.connect(target) as c:
            c.load_module(SOURCE)


def test_sessions_that_load_modules_give_their_memory_back(module_server):
    target, pid = module_server.target, module_server.proc.pid
    _cycles(target, 100)  # warm up: caches, arenas, gRPC buffers
    before = rss_kib(pid)
    _cycles(target, 400)
    grown = rss_kib(pid) - before
    # 400 loads leaked ~18 MiB before the fix; allow allocator noise, not a per-load leak.
    assert grown < 4 * 1024, "RSS grew by %d KiB over 400 module loads" % grown
    assert module_server.alive()
