"""Where a model load's time goes (issue 20's load criterion): one streamed upload into
a fresh graphd per round, with the CPU time each side spent on it.

    /usr/bin/python3 bench/load_profile.py --build-dir build [--model vgg11] [--rounds 5]
        [--pause-s 0] [--server-arg=--flag ...]

Per round, a fresh server (default flags plus --server-arg) and one client.load_onnx of
<build>/bench/models/<model>.onnx (exported by bench/zoo.py or bench/models/export_models.py),
then one line: `load s` (the client's wall time for load_onnx), `import s` (the server's
own import, from the response), their ratio, `client cpu s` (this process's CPU time
during the load: reading the file, gRPC's copies and sends) and the server threads that
spent at least 20 ms of CPU on it, by name (the gRPC threads that receive the chunks,
`nexting_thread`; the worker that imports, `exe`), from /proc. The last line gives the
medians. --pause-s sleeps between rounds (a VM may hand freed memory back to its host,
and the next load then faults it in again, slower).
"""

import argparse
import os
import resource
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients", "python"))

import local_server  # noqa: E402


def thread_cpu_s(pid):
    """{(tid, name): CPU seconds} of the process's threads."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[(tid, name)] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return out


def own_cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--model", default="vgg11")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pause-s", type=float, default=0.0)
    ap.add_argument("--server-arg", action="append", default=[])
    args = ap.parse_args()
    import graphd
    path = os.path.join(args.build_dir, "bench", "models", args.model + ".onnx")
    if not os.path.exists(path):
        sys.exit("load_profile: %s not found (export it: /usr/bin/python3 bench/zoo.py --build-dir %s --models %s)"
                 % (path, args.build_dir, args.model))
    print("%s: %.1f MB" % (args.model, os.path.getsize(path) / 1e6))
    loads, imports = [], []
    for _ in range(args.rounds):
        if args.pause_s > 0:
            time.sleep(args.pause_s)
        proc, target = local_server.start(os.path.join(args.build_dir, "bin", "graphd"), args.server_arg)
        try:
            client = graphd.connect(target, timeout=600)
            before, cpu0 = thread_cpu_s(proc.pid), own_cpu_s()
            t0 = time.perf_counter()
            fn = client.load_onnx(path)
            load_s = time.perf_counter() - t0
            cpu1, after = own_cpu_s(), thread_cpu_s(proc.pid)
            client.close()
        finally:
            local_server.stop(proc)
        busy = sorted(((after[k] - before.get(k, 0.0), k[1]) for k in after), reverse=True)
        threads = " ".join("%s %.2f" % (name, s) for s, name in busy if s >= 0.02)
        loads.append(load_s)
        imports.append(fn.import_seconds)
        print("load s %.3f  import s %.3f  load/imp %.2f  client cpu s %.2f  server cpu s: %s"
              % (load_s, fn.import_seconds, load_s / fn.import_seconds, cpu1 - cpu0, threads), flush=True)
    load, imp = statistics.median(loads), statistics.median(imports)
    print("median: load s %.3f  import s %.3f  load/imp %.2f" % (load, imp, load / imp))


if __name__ == "__main__":
    main()
