#include "executor/gpu/cuda_libs.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace graphd::executor::gpu {
namespace {

std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlerror";
}

// Resolves symbols of one library into typed table entries; remembers the first failure.
class Loader {
 public:
  // Tries `library` by name (the loader's search path), then, for a bare name, in
  // $GRAPHD_CUDA_LIB_DIR and the CUDA toolkit's library folders; the error quotes the
  // first dlerror().
  explicit Loader(const char* library) : library_(library) {
    handle_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) return;
    const std::string first_error = DlError();
    if (std::strchr(library, '/') == nullptr) {
      std::vector<std::string> dirs;
      if (const char* dir = std::getenv("GRAPHD_CUDA_LIB_DIR"); dir != nullptr && *dir != '\0') dirs.push_back(dir);
      dirs.insert(dirs.end(),
                  {"/usr/local/cuda/lib64", "/usr/local/cuda/lib", "/usr/local/cuda/targets/x86_64-linux/lib"});
      for (const std::string& dir : dirs) {
        handle_ = dlopen(absl::StrCat(dir, "/", library).c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle_ != nullptr) return;
      }
    }
    status_ = errors::FailedPrecondition(absl::StrCat("cannot load ", library,
                                                      " (needed by the GPU device; also looked in "
                                                      "$GRAPHD_CUDA_LIB_DIR and /usr/local/cuda/lib64): ",
                                                      first_error));
  }

  template <typename F>
  void Get(F& fn, const char* symbol) {
    fn = nullptr;
    if (!status_.ok()) return;
    dlerror();
    fn = reinterpret_cast<F>(dlsym(handle_, symbol));
    if (fn == nullptr) {
      status_ = errors::FailedPrecondition(absl::StrCat(library_, " has no symbol ", symbol, ": ", DlError()));
    }
  }

  // Like Get, but a missing symbol leaves `fn` nullptr and is no error.
  template <typename F>
  void GetOptional(F& fn, const char* symbol) {
    fn = nullptr;
    if (!status_.ok()) return;
    dlerror();
    fn = reinterpret_cast<F>(dlsym(handle_, symbol));
  }

  const Status& status() const { return status_; }

 private:
  const char* library_;
  void* handle_ = nullptr;  // never closed: the tables live for the whole process
  Status status_;
};

#define GRAPHD_LOAD(loader, table, field, symbol) (loader).Get((table).field, #symbol)

}  // namespace

StatusOr<CublasApi> LoadCublasFrom(const char* library) {
  Loader l(library);
  CublasApi t{};
  GRAPHD_LOAD(l, t, Create, cublasCreate_v2);
  GRAPHD_LOAD(l, t, Destroy, cublasDestroy_v2);
  GRAPHD_LOAD(l, t, SetStream, cublasSetStream_v2);
  GRAPHD_LOAD(l, t, SetMathMode, cublasSetMathMode);
  GRAPHD_LOAD(l, t, GetStatusString, cublasGetStatusString);
  GRAPHD_LOAD(l, t, Sgemm, cublasSgemm_v2);
  GRAPHD_LOAD(l, t, SgemmStridedBatched, cublasSgemmStridedBatched);
  if (!l.status().ok()) return l.status();
  return t;
}

StatusOr<CudnnApi> LoadCudnnFrom(const char* library) {
  Loader l(library);
  CudnnApi t{};
  GRAPHD_LOAD(l, t, GetVersion, cudnnGetVersion);
  GRAPHD_LOAD(l, t, GetErrorString, cudnnGetErrorString);
  GRAPHD_LOAD(l, t, Create, cudnnCreate);
  GRAPHD_LOAD(l, t, Destroy, cudnnDestroy);
  GRAPHD_LOAD(l, t, SetStream, cudnnSetStream);
  GRAPHD_LOAD(l, t, CreateTensorDescriptor, cudnnCreateTensorDescriptor);
  GRAPHD_LOAD(l, t, SetTensorNdDescriptor, cudnnSetTensorNdDescriptor);
  GRAPHD_LOAD(l, t, DestroyTensorDescriptor, cudnnDestroyTensorDescriptor);
  GRAPHD_LOAD(l, t, CreateFilterDescriptor, cudnnCreateFilterDescriptor);
  GRAPHD_LOAD(l, t, SetFilterNdDescriptor, cudnnSetFilterNdDescriptor);
  GRAPHD_LOAD(l, t, DestroyFilterDescriptor, cudnnDestroyFilterDescriptor);
  GRAPHD_LOAD(l, t, CreateConvolutionDescriptor, cudnnCreateConvolutionDescriptor);
  GRAPHD_LOAD(l, t, SetConvolutionNdDescriptor, cudnnSetConvolutionNdDescriptor);
  GRAPHD_LOAD(l, t, SetConvolutionGroupCount, cudnnSetConvolutionGroupCount);
  GRAPHD_LOAD(l, t, SetConvolutionMathType, cudnnSetConvolutionMathType);
  GRAPHD_LOAD(l, t, DestroyConvolutionDescriptor, cudnnDestroyConvolutionDescriptor);
  GRAPHD_LOAD(l, t, GetConvolutionForwardAlgorithm_v7, cudnnGetConvolutionForwardAlgorithm_v7);
  l.GetOptional(t.FindConvolutionForwardAlgorithm, "cudnnFindConvolutionForwardAlgorithm");
  GRAPHD_LOAD(l, t, GetConvolutionForwardWorkspaceSize, cudnnGetConvolutionForwardWorkspaceSize);
  GRAPHD_LOAD(l, t, ConvolutionForward, cudnnConvolutionForward);
  GRAPHD_LOAD(l, t, CreatePoolingDescriptor, cudnnCreatePoolingDescriptor);
  GRAPHD_LOAD(l, t, SetPoolingNdDescriptor, cudnnSetPoolingNdDescriptor);
  GRAPHD_LOAD(l, t, DestroyPoolingDescriptor, cudnnDestroyPoolingDescriptor);
  GRAPHD_LOAD(l, t, PoolingForward, cudnnPoolingForward);
  if (!l.status().ok()) return l.status();
  return t;
}

#undef GRAPHD_LOAD

StatusOr<const CublasApi*> Cublas() {
  static const StatusOr<CublasApi>* const loaded = new StatusOr<CublasApi>(LoadCublasFrom(kCublasLibrary));
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

StatusOr<const CudnnApi*> Cudnn() {
  static const StatusOr<CudnnApi>* const loaded = new StatusOr<CudnnApi>(LoadCudnnFrom(kCudnnLibrary));
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace graphd::executor::gpu
