#!/usr/bin/env python3
"""Clang's thread-safety analysis (-Wthread-safety) over every translation unit that
implements a class with ABSL_GUARDED_BY members or ABSL_*_LOCKS_REQUIRED functions, as
errors. The build itself uses GCC, which ignores the annotations; this runs clang++
with -fsyntax-only on the build's own compile commands, so the annotations are checked
on every `make test`.

    scripts/check-thread-safety.py [--build-dir build] [--clang clang++-16]

Exit status 0 when clean, 1 with the diagnostics otherwise, 2 when clang or the
compile commands are missing (scripts/install-deps.sh installs clang-16).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANNOTATION = re.compile(r"ABSL_(GUARDED_BY|PT_GUARDED_BY|EXCLUSIVE_LOCKS_REQUIRED|SHARED_LOCKS_REQUIRED|"
                        r"LOCKS_EXCLUDED|ACQUIRED_AFTER|ACQUIRED_BEFORE)\(")
SOURCE_DIRS = ("core", "compiler", "executor", "server")


def annotated_units(commands):
    """The .cc files of the build that define annotated classes' members: an annotated
    .cc itself, foo.cc beside an annotated foo.h, and any .cc that includes an annotated
    header and names its class (SourceModules' members live in source_calls.cc)."""
    annotated = []
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith((".h", ".cc")) and not f.endswith("_test.cc"):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding="utf-8") as fh:
                        if ANNOTATION.search(fh.read()):
                            annotated.append(path)
    headers = [os.path.relpath(h, ROOT) for h in annotated if h.endswith(".h")]
    units = set()
    for path in commands:
        if path in annotated or path[:-3] + ".h" in annotated:
            units.add(path)
            continue
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for h in headers:
            cls = os.path.basename(h)[:-2]
            camel = "".join(p.capitalize() for p in cls.split("_"))
            if '#include "%s"' % h in text and re.search(r"\b%s::" % camel, text):
                units.add(path)
    return sorted(units)


def check(entry, clang):
    args = shlex.split(entry["command"])
    out, skip = [clang], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a in ("-c",) or a.startswith("-fopenmp"):
            continue
        out.append(a)
    out += ["-fsyntax-only", "-Wno-everything", "-Wthread-safety", "-Werror=thread-safety"]
    p = subprocess.run(out, cwd=entry["directory"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return entry["file"], p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--clang", default="clang++-16")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    if shutil.which(a.clang) is None:
        print("check-thread-safety: %s not found (scripts/install-deps.sh installs clang-16 and libomp-16-dev)" % a.clang)
        return 2
    db = os.path.join(a.build_dir, "compile_commands.json")
    if not os.path.exists(db):
        print("check-thread-safety: %s missing (configure the build first)" % db)
        return 2
    with open(db, encoding="utf-8") as fh:
        entries = {e["file"]: e for e in json.load(fh)}
    units = annotated_units([f for f in entries if f.startswith(ROOT) and "/build" not in f[len(ROOT):]])
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for path, rc, text in pool.map(lambda f: check(entries[f], a.clang), units):
            if rc != 0:
                failed += 1
                print("== %s\n%s" % (os.path.relpath(path, ROOT), text.strip()))
    print("check-thread-safety: %d translation units, %d with findings" % (len(units), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
