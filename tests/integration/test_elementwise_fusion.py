"""The elementwise_fusion pass through the server: source functions whose elementwise
chains become one FusedElementwise node give the values of a server started with
--disable-passes elementwise_fusion (which keeps the separate ops)."""

import numpy as np

import graphd

SOURCE = '''
import tensorflow as tf

@tf.function
def f(x, y):
  return tf.tanh(x * y + 1.0) * 0.5

@tf.function
def g(x, s):
  t = tf.exp(-tf.abs(x)) - s
  return tf.maximum(tf.sqrt(tf.square(t) + 1.0), tf.sigmoid(x) * t) / 3.0
'''


def run_all(target):
    rng = np.random.default_rng(3)
    out = {}
    with graphd.connect(target, device="cpu") as client:  # a CPU pass
        mod = client.load_module(SOURCE, filename="ew.py")
        for shape in [(0,), (5,), (3, 7), (300, 1001)]:
            x = rng.standard_normal(shape).astype(np.float32) * 3
            y = rng.standard_normal(shape).astype(np.float32)
            out[("f", shape)] = np.asarray(mod.f(x, y))
            out[("g", shape)] = np.asarray(mod.g(x, np.float32(0.25)))
        spec = graphd.TensorSpec([4, 8], "float32")
        dot = mod.f.get_concrete_function(spec, spec).to_dot()
    return out, dot


def test_fused_chains_match_the_unfused_ops(target, start_server):
    fused, dot = run_all(target)
    assert "FusedElementwise" in dot and "Tanh" not in dot
    server = start_server("--disable-passes", "elementwise_fusion")
    plain, plain_dot = run_all(server.target)
    assert "FusedElementwise" not in plain_dot and "Tanh" in plain_dot
    for key, want in plain.items():
        assert fused[key].shape == want.shape, key
        np.testing.assert_allclose(fused[key], want, rtol=2e-6, atol=1e-6, err_msg=str(key))
    assert np.abs(plain[("f", (300, 1001))]).max() > 0.4
