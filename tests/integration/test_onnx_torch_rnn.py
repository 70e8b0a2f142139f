"""Recurrent layers exported from Debian's torch (seeded random weights, exported here
and never committed) give the same outputs through graphd as through torch: RNN
(tanh), GRU (ONNX linear_before_reset=1) and LSTM, two layers, uni- and bidirectional,
time- and batch-major, with dynamic batch and sequence lengths.
"""

import numpy as np
import pytest

import torch  # python3-torch: scripts/install-deps.sh

import graphd

import it_helpers as h

RTOL = 1e-3


class Stack(torch.nn.Module):
    def __init__(self, kind, bidirectional, batch_first, inputs=3, hidden=5):
        super().__init__()
        self.rnn = getattr(torch.nn, kind)(inputs, hidden, num_layers=2, bidirectional=bidirectional,
                                           batch_first=batch_first)

    def forward(self, x):
        y, state = self.rnn(x)
        return y, state[0] if isinstance(state, tuple) else state


def _expect_torch_outputs(fn, model, x):
    """graphd's outputs for `x` through `fn` match torch's `model` on the same input."""
    with torch.no_grad():
        want = [t.numpy() for t in model(torch.from_numpy(x))]
    got = fn(x)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=1e-5)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_torch_recurrent_stack_matches_torch(client, kind, bidirectional, batch_first):
    torch.manual_seed(0)
    model = Stack(kind, bidirectional, batch_first).eval()
    seq_axis, batch_axis = (1, 0) if batch_first else (0, 1)
    data = h.torch_onnx_bytes(model, torch.zeros(4, 2, 3) if not batch_first else torch.zeros(2, 4, 3),
                              input_names=["x"], output_names=["y", "h"], opset_version=14,
                              dynamic_axes={"x": {seq_axis: "seq", batch_axis: "batch"},
                                            "y": {seq_axis: "seq", batch_axis: "batch"}, "h": {1: "batch"}})
    fn = client.load_onnx(data, name="rnn")
    rng = np.random.default_rng(1)
    for seq, batch in ((6, 3), (1, 1)):
        shape = (batch, seq, 3) if batch_first else (seq, batch, 3)
        _expect_torch_outputs(fn, model, rng.standard_normal(shape).astype(np.float32))


# Hidden sizes from 128 at batches up to 4 run the LSTM's recurrence on a team of
# threads that splits the hidden units, with R packed once (executor/cpu/lstm_sequence.h);
# 144 units split unevenly. Batch 6 takes the general path.
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("hidden", [128, 144])
def test_torch_lstm_with_wide_hidden_state_matches_torch(target, bidirectional, hidden):
    torch.manual_seed(2)
    model = Stack("LSTM", bidirectional, False, inputs=16, hidden=hidden).eval()
    data = h.torch_onnx_bytes(model, torch.zeros(5, 1, 16), input_names=["x"], output_names=["y", "h"],
                              opset_version=14,
                              dynamic_axes={"x": {0: "seq", 1: "batch"}, "y": {0: "seq", 1: "batch"},
                                            "h": {1: "batch"}})
    rng = np.random.default_rng(3)
    # A CPU session: the team path is the CPU kernel's.
    with graphd.connect(target, device="cpu") as c:
        fn = c.load_onnx(data, name="lstm")
        for seq, batch in ((7, 1), (4, 3), (2, 6)):
            _expect_torch_outputs(fn, model, rng.standard_normal((seq, batch, 16)).astype(np.float32))
