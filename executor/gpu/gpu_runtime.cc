#include "executor/gpu/gpu_runtime.h"

#include "executor/gpu/gpu_device.h"
#include "executor/memory_owner.h"

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/logging.h"

namespace graphd::executor::gpu {
namespace {

// One thread's objects on one GPU.
struct ThreadGpu {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  const CublasApi* blas_api = nullptr;
  cudnnHandle_t dnn = nullptr;
  const CudnnApi* dnn_api = nullptr;
};

// Streams (with their handles) of threads that exited, per GPU, for later threads.
// Never destroyed: the caching allocator may still hold blocks last used on such a
// stream and record events on it, so a stream handle must stay valid for the process's
// life. Pooling bounds their number by the most threads ever alive at once.
class StreamPool {
 public:
  static StreamPool& Get() {
    static StreamPool* pool = new StreamPool;  // leaked: outlives every thread's state
    return *pool;
  }
  void Put(int ordinal, const ThreadGpu& g) {
    absl::MutexLock lock(&mu_);
    free_[ordinal].push_back(g);
  }
  bool Take(int ordinal, ThreadGpu* g) {
    absl::MutexLock lock(&mu_);
    std::vector<ThreadGpu>& v = free_[ordinal];
    if (v.empty()) return false;
    *g = v.back();
    v.pop_back();
    return true;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<int, std::vector<ThreadGpu>> free_ ABSL_GUARDED_BY(mu_);
};

// Everything a thread holds. When the thread exits its streams are synchronized (so
// all work the thread queued is done) and handed to the pool with their handles.
struct ThreadState {
  int current = -1;  // the GPU this code last made current on the thread
  absl::flat_hash_map<int, ThreadGpu> gpus;

  ~ThreadState() { Release(); }
  // Hands every stream (with its handles) to the pool once its work is done; `current`
  // may change (cudaSetDevice).
  void Release() {
    for (auto& [ordinal, g] : gpus) {
      if (g.stream == nullptr || cudaSetDevice(ordinal) != cudaSuccess) continue;
      current = ordinal;
      if (cudaStreamSynchronize(g.stream) != cudaSuccess) continue;  // context gone: drop it
      StreamPool::Get().Put(ordinal, g);
    }
    gpus.clear();
  }
};

ThreadState& Thread() {
  thread_local ThreadState state;
  return state;
}

// The release context of one device buffer.
struct DeviceBlock {
  std::shared_ptr<GpuRuntime> runtime;
  cudaStream_t stream;
};

void ReleaseBlock(void* context, void* data, size_t bytes) {
  auto* block = static_cast<DeviceBlock*>(context);
  Status s = block->runtime->allocator().Free(data, reinterpret_cast<Stream>(block->stream));
  if (!s.ok()) GRAPHD_LOG_ERROR("GPU {}: freeing {} bytes: {}", block->runtime->ordinal(), bytes, s.ToString());
  delete block;
}

}  // namespace

void ReleaseThreadState() { Thread().Release(); }

Status CudaCall(cudaError_t err, absl::string_view call) {
  if (err == cudaSuccess) return absl::OkStatus();
  std::string message = absl::StrCat(call, " failed: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), ")");
  // Clears a non-sticky error, so that the next launch's cudaGetLastError does not
  // report it again (sticky errors stay: the context is unusable).
  cudaGetLastError();
  if (err == cudaErrorMemoryAllocation) return errors::ResourceExhausted(message);
  return errors::Internal(message);
}

Status CublasCall(const CublasApi& api, cublasStatus_t status, absl::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  std::string message =
      absl::StrCat(call, " failed: ", api.GetStatusString(status), " (cuBLAS status ", static_cast<int>(status), ")");
  if (status == CUBLAS_STATUS_ALLOC_FAILED) return errors::ResourceExhausted(message);
  return errors::Internal(message);
}

Status CudnnCall(const CudnnApi& api, cudnnStatus_t status, absl::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  std::string message =
      absl::StrCat(call, " failed: ", api.GetErrorString(status), " (cuDNN status ", static_cast<int>(status), ")");
  if (status == CUDNN_STATUS_ALLOC_FAILED) return errors::ResourceExhausted(message);
  return errors::Internal(message);
}

// The allocator's view of the GPU. Called with the allocator's lock held, from any
// thread, so every call first makes the GPU current.
class GpuRuntime::Backend : public AllocatorBackend {
 public:
  explicit Backend(const GpuRuntime& runtime) : runtime_(runtime) {}

  absl::StatusOr<void*> Malloc(size_t bytes) override {
    RETURN_IF_ERROR(runtime_.Activate());
    void* ptr = nullptr;
    RETURN_IF_ERROR(CudaCall(cudaMalloc(&ptr, bytes), absl::StrCat("cudaMalloc(", bytes, " bytes)")));
    return ptr;
  }
  void Free(void* ptr) override {
    if (!runtime_.Activate().ok()) return;
    Status s = CudaCall(cudaFree(ptr), "cudaFree");
    if (!s.ok()) GRAPHD_LOG_ERROR("GPU {}: {}", runtime_.ordinal(), s.ToString());
  }
  absl::StatusOr<Event> RecordEvent(gpu::Stream stream) override {
    RETURN_IF_ERROR(runtime_.Activate());
    cudaEvent_t event = nullptr;
    RETURN_IF_ERROR(CudaCall(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags"));
    Status s = CudaCall(cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord");
    if (!s.ok()) {
      cudaEventDestroy(event);
      return s;
    }
    return reinterpret_cast<Event>(event);
  }
  bool EventDone(Event event) override {
    if (!runtime_.Activate().ok()) return false;
    return cudaEventQuery(reinterpret_cast<cudaEvent_t>(event)) == cudaSuccess;
  }
  void DestroyEvent(Event event) override {
    if (runtime_.Activate().ok()) cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event));
  }

 private:
  const GpuRuntime& runtime_;
};

GpuRuntime::GpuRuntime(int ordinal, const CublasApi* cublas, const CudnnApi* cudnn)
    : ordinal_(ordinal),
      cublas_(cublas),
      cudnn_(cudnn),
      backend_(std::make_unique<Backend>(*this)),
      allocator_(std::make_unique<CachingAllocator>(backend_.get())) {}

GpuRuntime::~GpuRuntime() { allocator_.reset(); }

StatusOr<std::shared_ptr<GpuRuntime>> GpuRuntime::Create(int ordinal) {
  ASSIGN_OR_RETURN(const CublasApi* cublas, Cublas());
  ASSIGN_OR_RETURN(const CudnnApi* cudnn, Cudnn());
  std::shared_ptr<GpuRuntime> runtime(new GpuRuntime(ordinal, cublas, cudnn));
  runtime->self_ = runtime;
  RETURN_IF_ERROR(runtime->Activate());
  return runtime;
}

Status GpuRuntime::Activate() const {
  ThreadState& t = Thread();
  if (t.current == ordinal_) return absl::OkStatus();
  RETURN_IF_ERROR(CudaCall(cudaSetDevice(ordinal_), absl::StrCat("cudaSetDevice(", ordinal_, ")")));
  t.current = ordinal_;
  return absl::OkStatus();
}

StatusOr<cudaStream_t> GpuRuntime::Stream() const {
  RETURN_IF_ERROR(Activate());
  ThreadGpu& g = Thread().gpus[ordinal_];
  if (g.stream == nullptr && !StreamPool::Get().Take(ordinal_, &g)) {
    RETURN_IF_ERROR(CudaCall(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"));
  }
  return g.stream;
}

StatusOr<cublasHandle_t> GpuRuntime::CublasHandle() const {
  ASSIGN_OR_RETURN(cudaStream_t stream, Stream());
  ThreadGpu& g = Thread().gpus[ordinal_];
  if (g.blas == nullptr) {
    cublasHandle_t handle = nullptr;
    RETURN_IF_ERROR(CublasCall(*cublas_, cublas_->Create(&handle), "cublasCreate"));
    Status s = CublasCall(*cublas_, cublas_->SetStream(handle, stream), "cublasSetStream");
    if (s.ok()) s = CublasCall(*cublas_, cublas_->SetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    if (!s.ok()) {
      cublas_->Destroy(handle);
      return s;
    }
    g.blas = handle;
    g.blas_api = cublas_;
  }
  return g.blas;
}

StatusOr<cudnnHandle_t> GpuRuntime::CudnnHandle() const {
  ASSIGN_OR_RETURN(cudaStream_t stream, Stream());
  ThreadGpu& g = Thread().gpus[ordinal_];
  if (g.dnn == nullptr) {
    cudnnHandle_t handle = nullptr;
    RETURN_IF_ERROR(CudnnCall(*cudnn_, cudnn_->Create(&handle), "cudnnCreate"));
    Status s = CudnnCall(*cudnn_, cudnn_->SetStream(handle, stream), "cudnnSetStream");
    if (!s.ok()) {
      cudnn_->Destroy(handle);
      return s;
    }
    g.dnn = handle;
    g.dnn_api = cudnn_;
  }
  return g.dnn;
}

StatusOr<Tensor> GpuRuntime::Allocate(DType dtype, const Shape& shape, cudaStream_t stream) const {
  if (dtype == DType::kString || dtype == DType::kInvalid) {
    return errors::InvalidArgument(absl::StrCat("GPU ", ordinal_, " holds no ", DTypeName(dtype), " tensors"));
  }
  const int64_t n = shape.num_elements();
  const size_t bytes = static_cast<size_t>(n) * DTypeSize(dtype);
  if (n < 0 || (n > 0 && bytes / static_cast<size_t>(n) != DTypeSize(dtype))) {
    return errors::InvalidArgument(absl::StrCat("tensor ", DTypeName(dtype), shape.ToString(), " is too large"));
  }
  std::shared_ptr<GpuRuntime> self = self_.lock();
  if (self == nullptr) return errors::Internal("GPU runtime used after destruction");
  ASSIGN_OR_RETURN(void* ptr,
                   allocator_->Allocate(bytes, reinterpret_cast<gpu::Stream>(stream), CurrentMemoryOwner()));
  auto* block = new DeviceBlock{std::move(self), stream};
  std::shared_ptr<Buffer> buffer = Buffer::Adopt(ptr, bytes, ordinal_, &ReleaseBlock, block);
  return Tensor::FromBuffer(dtype, shape, std::move(buffer));
}

}  // namespace graphd::executor::gpu
