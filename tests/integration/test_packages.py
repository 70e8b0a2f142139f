"""Client packages (issue 19).

- `make wheel`'s wheel (scripts/make-wheel.sh) carries the generated stubs: installed
  into a fresh virtual environment (with the system's grpcio, protobuf and numpy: no
  package index here), it imports and talks to a server from outside the repository.
- The C++ client installs as a CMake package (`cmake --install --component client`),
  and a program built against it with find_package(graphd) runs against a server.
"""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _build_dir():
    binary = os.environ.get("GRAPHD_BIN")
    return os.path.dirname(os.path.dirname(binary)) if binary else os.path.join(REPO, "build")


def test_the_wheel_installs_into_a_fresh_venv_and_calls_a_server(server, tmp_path):
    out = subprocess.run(["bash", os.path.join(REPO, "scripts", "make-wheel.sh"), str(tmp_path / "build")],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    wheel = out.stdout.strip().splitlines()[-1]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = str(venv / "bin" / "python")
    # pip from the system site packages installs into the venv (no index: offline).
    out = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheel],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    script = ("import graphd, numpy as np\n"
              "assert graphd.__file__.startswith(%r), graphd.__file__\n"
              "with graphd.connect(%r) as c:\n"
              "    m = c.load_module('import tensorflow as tf\\n@tf.function\\ndef f(x):\\n    return x + 1.0\\n')\n"
              "    print(float(m.f(np.float32(2.0))), c.echo(b'wheel'))\n") % (str(venv), server.target)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([python, "-c", script], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3.0", "b'wheel'"]


def test_the_installed_cpp_client_builds_a_program_that_runs(server, tmp_path):
    build = _build_dir()
    assert os.path.exists(os.path.join(build, "CMakeCache.txt")), "configure the build first"
    prefix = tmp_path / "prefix"
    out = subprocess.run(["cmake", "--install", build, "--prefix", str(prefix), "--component", "client"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert (prefix / "include" / "graphd" / "client" / "graphd_client.h").exists()
    app = os.path.join(REPO, "tests", "packages", "cpp_client_app")
    out_dir = tmp_path / "app"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    out = subprocess.run(["cmake", "-S", app, "-B", str(out_dir), "-DCMAKE_BUILD_TYPE=Release",
                          "-DCMAKE_PREFIX_PATH=%s" % prefix] + generator, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    out = subprocess.run(["cmake", "--build", str(out_dir)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    out = subprocess.run([str(out_dir / "client_app"), server.target], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "echo=from an installed client z=9"
