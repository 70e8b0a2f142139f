"""scripts/device-bundle.sh (issue 6): the bundle the device tool carries to a GPU
machine holds the programs and every shared library they load except the C library
family, libstdc++/libgcc_s and CUDA's; its launcher unpacks it and runs a program with
those libraries; it stays under the device tool's 64 MiB."""

import os
import socket
import subprocess
import time

import graphd

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "device-bundle.sh")
SYSTEM = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so",
          "libresolv.so", "libstdc++.so", "libgcc_s.so")


def _build_dir(graphd_bin):
    return os.path.dirname(os.path.dirname(os.path.abspath(graphd_bin)))


def _bundle(tmp_path, graphd_bin, *args):
    out = tmp_path / "bundle"
    proc = subprocess.run(["bash", SCRIPT, "--build-dir", _build_dir(graphd_bin), "--out", str(out),
                           "--fast"] + list(args), capture_output=True, text=True, timeout=300)
    return out, proc


def test_bundle_runs_graphd_with_its_own_libraries(tmp_path, graphd_bin):
    out, proc = _bundle(tmp_path, graphd_bin, "--program", "graphd")
    assert proc.returncode == 0, proc.stderr
    archive = out / "graphd-bundle.tar.xz"
    assert archive.is_file()
    assert sum(f.stat().st_size for f in out.iterdir()) < 64 * 1024 * 1024
    env = dict(os.environ, GRAPHD_BUNDLE_DIR=str(tmp_path / "unpacked"))
    shown = subprocess.run([str(out / "run"), "graphd", "--help"], env=env, capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert "Usage: graphd" in shown.stdout

    # Every library outside the system set resolves inside the bundle.
    unpacked = tmp_path / "unpacked"
    ldd = subprocess.run(["ldd", str(unpacked / "bin" / "graphd")], capture_output=True, text=True,
                         env=dict(os.environ, LD_LIBRARY_PATH=str(unpacked / "lib")), timeout=60)
    outside = [line.strip() for line in ldd.stdout.splitlines()
               if line.strip() and str(unpacked / "lib") not in line
               and not line.strip().startswith(SYSTEM) and not line.strip().startswith("/lib64/ld-linux")]
    assert outside == []
    libs = os.listdir(unpacked / "lib")
    assert any(name.startswith("libdnnl.so") for name in libs)
    assert any(name.startswith("libgrpc++.so") for name in libs)
    assert not any(name.startswith(("libc.so", "libstdc++.so")) for name in libs)

    # A path-shaped wrapper per program, and the Python stubs.
    shown = subprocess.run([str(out / "bin" / "graphd"), "--version"], env=env, capture_output=True, text=True,
                           timeout=60)
    assert shown.returncode == 0 and shown.stdout.strip()[:1].isdigit(), (shown.stdout, shown.stderr)
    assert (out / "python" / "session_pb2.py").is_file() and (out / "python" / "session_pb2_grpc.py").is_file()

    # And it serves.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    target = "127.0.0.1:%d" % port
    server = subprocess.Popen([str(out / "run"), "graphd", "--listen", target], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        status = None
        while time.monotonic() < deadline and status != "SERVING":
            try:
                status = graphd.health(target, timeout=0.5)
            except graphd.errors.OpError:
                time.sleep(0.1)
        assert status == "SERVING"
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_bad_arguments_are_named(tmp_path, graphd_bin):
    _, proc = _bundle(tmp_path, graphd_bin, "--bogus")
    assert proc.returncode == 2
    assert "unknown argument '--bogus'" in proc.stderr
    _, proc = _bundle(tmp_path, graphd_bin, "--program", "no_such_program")
    assert proc.returncode == 1
    assert "no_such_program not found" in proc.stderr


def test_launcher_names_a_missing_program(tmp_path, graphd_bin):
    out, proc = _bundle(tmp_path, graphd_bin, "--program", "graphctl")
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ, GRAPHD_BUNDLE_DIR=str(tmp_path / "unpacked"))
    run = subprocess.run([str(out / "run"), "graphd"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "no program 'graphd' in the bundle (graphctl" in run.stderr
    run = subprocess.run([str(out / "run")], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "usage:" in run.stderr
