#!/usr/bin/env bash
# Packs graphd's built programs and the shared libraries they need that a bare GPU
# machine lacks (gRPC, protobuf, abseil, oneDNN, spdlog, ONNX, ...) into one folder
# the device tool can carry (64 MiB limit): an xz archive plus a launcher that
# unpacks it once and runs a program with the bundled libraries.
#
#   scripts/device-bundle.sh [--build-dir DIR] [--out DIR] [--tests] [--fast]
#                            [--program NAME]...
#
#   --build-dir DIR  the build to pack (default: build)
#   --out DIR        the bundle folder (default: device-bundle, ignored by git)
#   --program NAME   a program from DIR/bin to pack (repeatable; default: graphd,
#                    graphctl and the C++ benchmark drivers)
#   --tests          also pack every gtest binary in DIR/bin
#   --fast           quicker, larger compression (for tests of this script)
#   --onnx-testdata  also pack Debian's ONNX backend test data and the onnx.proto Python
#                    modules (onnx-testdata.tar.xz; scripts/gpu-verify.sh unpacks it)
#
# On the device:  device-bundle/run PROGRAM [ARGS...]  or  device-bundle/bin/PROGRAM [ARGS...]
# (bin/ holds one small wrapper per program, for tools that want a path, e.g.
# GRAPHD_BIN=device-bundle/bin/graphd for the integration tests), and
# device-bundle/python/ the generated Python stubs (graphd/v1/*_pb2*.py and, in
# python/kserve/, graphd/kserve's; ignored by git
# and so not in a carried working tree; scripts/gpu-verify.sh copies them in place).
# unpacks into ${GRAPHD_BUNDLE_DIR:-/tmp/graphd-bundle} when the archive is newer
# than the last unpack, then runs bin/PROGRAM with LD_LIBRARY_PATH set to the bundled
# lib/. Left out on purpose: the C library family, libstdc++ and libgcc_s (the device
# has newer ones: glibc 2.39) and the CUDA/cuDNN libraries (the device's own).
set -euo pipefail

build_dir=build
out=device-bundle
tests=0
onnx_testdata=0
level=-6
programs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --program) programs+=("$2"); shift 2 ;;
    --tests) tests=1; shift ;;
    --fast) level=-0; shift ;;
    --onnx-testdata) onnx_testdata=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "device-bundle: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

limit_bytes=$((64 * 1024 * 1024))
bin_dir=$build_dir/bin
if [ ! -x "$bin_dir/graphd" ]; then
  echo "device-bundle: $bin_dir/graphd not found: build first (make build)" >&2
  exit 1
fi
if [ ${#programs[@]} -eq 0 ]; then
  programs=(graphd graphctl model_bench run_overhead_bench source_bench)
fi
if [ "$tests" = 1 ]; then
  while IFS= read -r t; do programs+=("$(basename "$t")"); done \
    < <(find "$bin_dir" -maxdepth 1 -type f -name '*_test' | sort)
fi

# Libraries the device provides itself (matched against the file name).
system_lib() {
  case "$1" in
    ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|libutil.so*) return 0 ;;
    libstdc++.so*|libgcc_s.so*) return 0 ;;
    libcuda.so*|libcudart.so*|libcublas*|libcublasLt*|libcudnn*|libnvrtc*|libnvJitLink*|libcufft*|libcurand*) return 0 ;;
    linux-vdso.so*) return 0 ;;
  esac
  return 1
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for p in "${programs[@]}"; do
  if [ ! -x "$bin_dir/$p" ]; then
    echo "device-bundle: $bin_dir/$p not found" >&2
    exit 1
  fi
  strip --strip-unneeded -o "$stage/bin/$p" "$bin_dir/$p"
  # `ldd` lists what the loader resolves here: name => path (address).
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [ "$path" = "not" ]; then
      echo "device-bundle: $p needs $name, which is not found on this machine" >&2
      exit 1
    fi
    system_lib "$name" && continue
    [ -e "$stage/lib/$name" ] || cp -L "$path" "$stage/lib/$name"
  done < <(ldd "$bin_dir/$p")
done

cat > "$stage/MANIFEST" <<EOF
graphd device bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
programs: ${programs[*]}
libraries: $(cd "$stage/lib" && ls | tr '\n' ' ')
EOF

rm -rf "$out"
mkdir -p "$out"
tar -C "$stage" -cf - bin lib MANIFEST | xz -T2 "$level" > "$out/graphd-bundle.tar.xz"
cat > "$out/run" <<'EOF'
#!/bin/sh
# Runs a program of the graphd device bundle: device-bundle/run PROGRAM [ARGS...]
# (scripts/device-bundle.sh). Unpacks the archive next to this script into
# ${GRAPHD_BUNDLE_DIR:-/tmp/graphd-bundle} when it is newer than the last unpack.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dest=${GRAPHD_BUNDLE_DIR:-/tmp/graphd-bundle}
if [ $# -lt 1 ]; then
  echo "usage: $0 PROGRAM [ARGS...]  (programs: see $dest/MANIFEST after the first run)" >&2
  exit 2
fi
if [ ! -f "$dest/.unpacked" ] || [ "$here/graphd-bundle.tar.xz" -nt "$dest/.unpacked" ]; then
  rm -rf "$dest" && mkdir -p "$dest"
  xz -dc "$here/graphd-bundle.tar.xz" | tar -C "$dest" -xf -
  touch "$dest/.unpacked"
fi
program=$1
shift
if [ ! -x "$dest/bin/$program" ]; then
  echo "$0: no program '$program' in the bundle ($(ls "$dest/bin" | tr '\n' ' '))" >&2
  exit 2
fi
LD_LIBRARY_PATH="$dest/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$dest/bin/$program" "$@"
EOF
chmod +x "$out/run"
mkdir -p "$out/bin" "$out/python"
for p in "${programs[@]}"; do
  printf '#!/bin/sh\nexec "$(dirname "$0")/../run" %s "$@"\n' "$p" > "$out/bin/$p"
  chmod +x "$out/bin/$p"
done
stubs=$(dirname "$0")/../clients/python/graphd/v1
cp "$stubs"/*_pb2.py "$stubs"/*_pb2_grpc.py "$out/python/" 2>/dev/null || \
  echo "device-bundle: no generated Python stubs in $stubs (build first); bundle has none" >&2
mkdir -p "$out/python/kserve"  # the KServe v2 stubs (graphd/kserve), for clients built from them alone
cp "$stubs"/../kserve/*_pb2.py "$stubs"/../kserve/*_pb2_grpc.py "$out/python/kserve/" 2>/dev/null || \
  echo "device-bundle: no generated KServe stubs in $stubs/../kserve (build first)" >&2

if [ "$onnx_testdata" = 1 ]; then
  data=/usr/share/libonnx-testdata/data
  [ -d "$data/node" ] || { echo "device-bundle: no ONNX test data at $data (apt-get install libonnx-testdata)" >&2; exit 1; }
  onnx_stage=$(mktemp -d)
  mkdir -p "$onnx_stage/pb2"
  protoc -I /usr/include/onnx --python_out="$onnx_stage/pb2" /usr/include/onnx/onnx.proto
  protoc -I "$(dirname "$0")/../tests/integration" --python_out="$onnx_stage/pb2" \
    "$(dirname "$0")/../tests/integration/onnx_data.proto"
  cp -r "$data" "$onnx_stage/data"
  tar -C "$onnx_stage" -cf - data pb2 | xz -T2 "$level" > "$out/onnx-testdata.tar.xz"
  rm -rf "$onnx_stage"
fi

size=$(du -cb "$out" | tail -1 | cut -f1)
echo "device-bundle: wrote $out/: ${#programs[@]} programs, $(ls "$stage/lib" | wc -l) libraries," \
  "$((size / 1024 / 1024)) MiB (unpacked $(($(du -sb "$stage" | cut -f1) / 1024 / 1024)) MiB)"
if [ "$size" -gt "$limit_bytes" ]; then
  echo "device-bundle: $out is over the device tool's 64 MiB limit: pack fewer programs (--program)" >&2
  exit 1
fi
