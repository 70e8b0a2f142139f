// cuBLAS and cuDNN, loaded at run time with dlopen (issue 6). graphd links only the
// static CUDA runtime, so the server starts on machines without these libraries (CI
// build machines, CPU-only hosts); the GPU device loads them when it is created.
// Each table entry is typed from the real header (decltype(&cublasSgemm_v2), ...), so a
// call through it is checked by the compiler like a direct call.
// Internal to executor/gpu (includes CUDA headers). Thread-safe: loaded once.
#ifndef GRAPHD_EXECUTOR_GPU_CUDA_LIBS_H_
#define GRAPHD_EXECUTOR_GPU_CUDA_LIBS_H_

#include <cublas_v2.h>
#include <cudnn.h>

#include "core/status.h"

namespace graphd::executor::gpu {

inline constexpr char kCublasLibrary[] = "libcublas.so.13";
inline constexpr char kCudnnLibrary[] = "libcudnn.so.9";

struct CublasApi {
  decltype(&cublasCreate_v2) Create;
  decltype(&cublasDestroy_v2) Destroy;
  decltype(&cublasSetStream_v2) SetStream;
  decltype(&cublasSetMathMode) SetMathMode;
  decltype(&cublasGetStatusString) GetStatusString;
  decltype(&cublasSgemm_v2) Sgemm;
  decltype(&cublasSgemmStridedBatched) SgemmStridedBatched;
};

struct CudnnApi {
  decltype(&cudnnGetVersion) GetVersion;
  decltype(&cudnnGetErrorString) GetErrorString;
  decltype(&cudnnCreate) Create;
  decltype(&cudnnDestroy) Destroy;
  decltype(&cudnnSetStream) SetStream;
  decltype(&cudnnCreateTensorDescriptor) CreateTensorDescriptor;
  decltype(&cudnnSetTensorNdDescriptor) SetTensorNdDescriptor;
  decltype(&cudnnDestroyTensorDescriptor) DestroyTensorDescriptor;
  decltype(&cudnnCreateFilterDescriptor) CreateFilterDescriptor;
  decltype(&cudnnSetFilterNdDescriptor) SetFilterNdDescriptor;
  decltype(&cudnnDestroyFilterDescriptor) DestroyFilterDescriptor;
  decltype(&cudnnCreateConvolutionDescriptor) CreateConvolutionDescriptor;
  decltype(&cudnnSetConvolutionNdDescriptor) SetConvolutionNdDescriptor;
  decltype(&cudnnSetConvolutionGroupCount) SetConvolutionGroupCount;
  decltype(&cudnnSetConvolutionMathType) SetConvolutionMathType;
  decltype(&cudnnDestroyConvolutionDescriptor) DestroyConvolutionDescriptor;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) GetConvolutionForwardAlgorithm_v7;
  // Optional (nullptr when the library lacks it): the measured choice of an algorithm.
  decltype(&cudnnFindConvolutionForwardAlgorithm) FindConvolutionForwardAlgorithm;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) GetConvolutionForwardWorkspaceSize;
  decltype(&cudnnConvolutionForward) ConvolutionForward;
  decltype(&cudnnCreatePoolingDescriptor) CreatePoolingDescriptor;
  decltype(&cudnnSetPoolingNdDescriptor) SetPoolingNdDescriptor;
  decltype(&cudnnDestroyPoolingDescriptor) DestroyPoolingDescriptor;
  decltype(&cudnnPoolingForward) PoolingForward;
};

// Loads the table from `library` (a fresh dlopen each call; for tests): by name through
// the loader's search path, else from $GRAPHD_CUDA_LIB_DIR, /usr/local/cuda/lib64,
// /usr/local/cuda/lib or /usr/local/cuda/targets/x86_64-linux/lib. FailedPrecondition
// naming the library and dlerror() when it cannot be opened or lacks a symbol.
StatusOr<CublasApi> LoadCublasFrom(const char* library);
StatusOr<CudnnApi> LoadCudnnFrom(const char* library);

// The loaded tables (the first call loads; later calls return the same result).
// FailedPrecondition naming the library and dlerror() when it or a symbol is missing.
StatusOr<const CublasApi*> Cublas();
StatusOr<const CudnnApi*> Cudnn();

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_CUDA_LIBS_H_
