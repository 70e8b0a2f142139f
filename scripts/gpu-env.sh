# Sourced by the device-machine scripts (gpu-session.sh, gpu-serving.sh): prints the
# GPU line and, where the loader does not find cuDNN and cuBLAS, points
# LD_LIBRARY_PATH at CUDA's lib64 and the nvidia-* wheels that torch brings.
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader
if ! ldconfig -p | grep -q 'libcudnn.so.9 ' || ! ldconfig -p | grep -q 'libcublas.so.13 '; then
  wheels=$(python3 -c "import glob, os, nvidia; print(':'.join(sorted({os.path.dirname(p) for d in nvidia.__path__ for p in glob.glob(os.path.join(d, '**', 'lib*.so*'), recursive=True)})))" 2>/dev/null)
  export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:$wheels
  echo "gpu-env: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
fi
