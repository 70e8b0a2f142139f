"""Training step time (issue 18): graphd against PyTorch eager on this machine.

Two models, batch 32, plain SGD (lr 0.01), softmax cross entropy:
  mlp: 784 -> 256 (ReLU) -> 10
  cnn: 28x28x1 -> conv 5x5x8 SAME, ReLU, max pool 2 -> conv 5x5x16 VALID, ReLU,
       max pool 2 -> dense 256 -> 10
graphd runs a tf.function train step (tf.GradientTape, tf.keras.optimizers.SGD) sent
as source; its step is timed by the server (execute) and by the client (end to end).
PyTorch runs the same model eagerly (forward, backward, optimizer step) with the same
number of threads. The two take turns: --rounds rounds of iters/rounds steps each (a
shared VM's speed drifts within a minute, so both see the same machine), medians over
all steps. Prints a table and writes a CSV.

    /usr/bin/python3 bench/training_bench.py --graphd build/bin/graphd [--iters 100] [--rounds 5] [--csv out.csv]
"""

import argparse
import csv
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients", "python"))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import graphd  # noqa: E402

sys.path.insert(0, HERE)
import local_server  # noqa: E402

SOURCE = '''
import tensorflow as tf

class MLP(tf.Module):
  def __init__(self):
    super().__init__()
    self.w1 = tf.Variable(tf.random.normal([784, 256], stddev=0.05, seed=1))
    self.b1 = tf.Variable(tf.zeros([256]))
    self.w2 = tf.Variable(tf.random.normal([256, 10], stddev=0.05, seed=2))
    self.b2 = tf.Variable(tf.zeros([10]))

  def __call__(self, x):
    return tf.matmul(tf.nn.relu(tf.matmul(tf.reshape(x, [-1, 784]), self.w1) + self.b1), self.w2) + self.b2

class CNN(tf.Module):
  def __init__(self):
    super().__init__()
    self.c1 = tf.Variable(tf.random.normal([5, 5, 1, 8], stddev=0.1, seed=3))
    self.c2 = tf.Variable(tf.random.normal([5, 5, 8, 16], stddev=0.1, seed=4))
    self.w1 = tf.Variable(tf.random.normal([400, 256], stddev=0.05, seed=5))
    self.w2 = tf.Variable(tf.random.normal([256, 10], stddev=0.05, seed=6))

  def __call__(self, x):
    h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, self.c1, 1, "SAME")), 2, 2, "VALID")
    h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(h, self.c2, 1, "VALID")), 2, 2, "VALID")
    return tf.matmul(tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 400]), self.w1)), self.w2)

models = {"mlp": MLP(), "cnn": CNN()}
opt = tf.keras.optimizers.SGD(learning_rate=0.01)

def step(model, x, labels):
  with tf.GradientTape() as tape:
    loss = tf.reduce_mean(-tf.reduce_sum(tf.one_hot(labels, 10) * tf.nn.log_softmax(model(x)), axis=1))
  grads = tape.gradient(loss, model.trainable_variables)
  opt.apply_gradients(zip(grads, model.trainable_variables))
  return loss

@tf.function
def mlp_step(x, labels):
  return step(models["mlp"], x, labels)

@tf.function
def cnn_step(x, labels):
  return step(models["cnn"], x, labels)
'''


class TorchMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(784, 256), torch.nn.Linear(256, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x.reshape(-1, 784))))


class TorchCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 8, 5, padding=2, bias=False)
        self.c2 = torch.nn.Conv2d(8, 16, 5, bias=False)
        self.l1 = torch.nn.Linear(400, 256, bias=False)
        self.l2 = torch.nn.Linear(256, 10, bias=False)

    def forward(self, x):
        h = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        h = torch.max_pool2d(torch.relu(self.c2(h)), 2)
        return self.l2(torch.relu(self.l1(h.reshape(-1, 400))))


def graphd_step(client, name, x, labels):
    """A warmed step function: one call -> (execute us, end-to-end us)."""
    mod = client.load_module(SOURCE, filename="train_bench.py")
    fn = getattr(mod, name + "_step")
    for _ in range(10):
        fn(x, labels)

    def one():
        t0 = time.perf_counter()
        fn(x, labels)
        return graphd.last_call_stats()["execute_us"], (time.perf_counter() - t0) * 1e6
    return one


def torch_step(model, x, labels):
    """A warmed PyTorch step: one call -> its time in us."""
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    xt = torch.tensor(x)
    yt = torch.tensor(labels, dtype=torch.long)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()

    for _ in range(10):
        step()

    def one():
        t0 = time.perf_counter()
        step()
        return (time.perf_counter() - t0) * 1e6
    return one


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphd", default=os.path.join(os.path.dirname(HERE), "build", "bin", "graphd"))
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--csv", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, 32).astype(np.int32)
    inputs = {"mlp": (rng.standard_normal((32, 784)).astype(np.float32), TorchMLP()),
              "cnn": (rng.standard_normal((32, 28, 28, 1)).astype(np.float32), TorchCNN())}
    proc, target = local_server.start(args.graphd)
    rows = []
    per_round = max(1, args.iters // max(1, args.rounds))
    try:
        with graphd.connect(target) as client:
            for name, (x, model) in inputs.items():
                tx = x if name == "mlp" else np.ascontiguousarray(x.transpose(0, 3, 1, 2))
                run_torch, run_graphd = torch_step(model, tx, labels), graphd_step(client, name, x, labels)
                torch_times, execute, e2e = [], [], []
                for _ in range(max(1, args.rounds)):
                    # The server's OpenMP helpers spin for a moment after its last call
                    # (GRAPHD_OPENMP_SPIN): let them sleep before PyTorch's turn.
                    time.sleep(0.2)
                    torch_times += [run_torch() for _ in range(per_round)]
                    for ex, ee in (run_graphd() for _ in range(per_round)):
                        execute.append(ex)
                        e2e.append(ee)
                rows.append((name, statistics.median(execute), statistics.median(e2e),
                             statistics.median(torch_times)))
    finally:
        local_server.stop(proc)
    print("%-5s %14s %14s %14s %12s" % ("model", "graphd exec us", "graphd e2e us", "torch step us", "exec/torch"))
    for name, execute, e2e, torch_us in rows:
        print("%-5s %14.0f %14.0f %14.0f %12.2f" % (name, execute, e2e, torch_us, execute / torch_us))
    if args.csv:
        os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "graphd_execute_us", "graphd_e2e_us", "torch_step_us"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
