// The cuBLAS/cuDNN loader and the CUDA/cuBLAS/cuDNN status mapping
// (executor/gpu/cuda_libs.h, gpu_runtime.h). None of this needs a GPU, only the
// libraries (present on the build machines under /usr/local/cuda), so it runs here.
#include "executor/gpu/cuda_libs.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "executor/gpu/gpu_runtime.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::gpu {
namespace {

using ::testing::HasSubstr;

TEST(CudaLibsTest, MissingLibraryIsFailedPreconditionNamingIt) {
  StatusOr<CublasApi> blas = LoadCublasFrom("libgraphd_no_such_blas.so.13");
  ASSERT_FALSE(blas.ok());
  EXPECT_EQ(blas.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(blas.status().message(), HasSubstr("cannot load libgraphd_no_such_blas.so.13"));
  EXPECT_THAT(blas.status().message(), HasSubstr("cannot open shared object file"));  // dlerror()
  StatusOr<CudnnApi> dnn = LoadCudnnFrom("libgraphd_no_such_dnn.so.9");
  ASSERT_FALSE(dnn.ok());
  EXPECT_EQ(dnn.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(dnn.status().message(), HasSubstr("libgraphd_no_such_dnn.so.9"));
}

TEST(CudaLibsTest, MissingSymbolIsFailedPreconditionNamingIt) {
  // libm opens fine but has no cuBLAS in it.
  StatusOr<CublasApi> blas = LoadCublasFrom("libm.so.6");
  ASSERT_FALSE(blas.ok());
  EXPECT_EQ(blas.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(blas.status().message(), HasSubstr("libm.so.6 has no symbol cublasCreate_v2"));
}

// A library outside the loader's search path is found through $GRAPHD_CUDA_LIB_DIR.
TEST(CudaLibsTest, LooksInGraphdCudaLibDir) {
  StatusOr<const CublasApi*> real = Cublas();
  if (!real.ok()) GTEST_SKIP() << real.status();
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>((*real)->Sgemm), &info), 0);
  const std::string dir = ::testing::TempDir() + "graphd_cuda_lib_dir";
  mkdir(dir.c_str(), 0755);
  const std::string link = dir + "/libgraphd_renamed_blas.so.13";
  unlink(link.c_str());
  ASSERT_EQ(symlink(info.dli_fname, link.c_str()), 0) << info.dli_fname;
  EXPECT_FALSE(LoadCublasFrom("libgraphd_renamed_blas.so.13").ok());
  setenv("GRAPHD_CUDA_LIB_DIR", dir.c_str(), 1);
  StatusOr<CublasApi> found = LoadCublasFrom("libgraphd_renamed_blas.so.13");
  unsetenv("GRAPHD_CUDA_LIB_DIR");
  unlink(link.c_str());
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_NE(found->Sgemm, nullptr);
}

TEST(CudaLibsTest, LoadsTheRealLibraries) {
  StatusOr<const CublasApi*> blas = Cublas();
  StatusOr<const CudnnApi*> dnn = Cudnn();
  if (!blas.ok() || !dnn.ok()) {
    // Build machines have them; a machine without them must say which one is missing.
    const Status& s = !blas.ok() ? blas.status() : dnn.status();
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(s.message(), HasSubstr(!blas.ok() ? kCublasLibrary : kCudnnLibrary));
    GTEST_SKIP() << s;
  }
  EXPECT_NE((*blas)->Sgemm, nullptr);
  EXPECT_NE((*blas)->SgemmStridedBatched, nullptr);
  EXPECT_NE((*dnn)->ConvolutionForward, nullptr);
  EXPECT_NE((*dnn)->PoolingForward, nullptr);
  EXPECT_GE((*dnn)->GetVersion(), size_t{90000});  // cuDNN 9
  EXPECT_EQ(*Cublas(), *blas);                     // loaded once
}

TEST(CudaLibsTest, StatusMapping) {
  EXPECT_TRUE(CudaCall(cudaSuccess, "cudaMemcpyAsync").ok());
  Status oom = CudaCall(cudaErrorMemoryAllocation, "cudaMalloc(64 bytes)");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(oom.message(), HasSubstr("cudaMalloc(64 bytes) failed: "));
  EXPECT_THAT(oom.message(), HasSubstr("(cudaErrorMemoryAllocation)"));
  Status bad = CudaCall(cudaErrorInvalidValue, "cudaMemcpyAsync");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(bad.message(), HasSubstr("cudaMemcpyAsync failed: invalid argument (cudaErrorInvalidValue)"));

  StatusOr<const CublasApi*> blas = Cublas();
  StatusOr<const CudnnApi*> dnn = Cudnn();
  if (!blas.ok() || !dnn.ok()) GTEST_SKIP() << "cuBLAS/cuDNN not loadable here";
  EXPECT_TRUE(CublasCall(**blas, CUBLAS_STATUS_SUCCESS, "cublasSgemm").ok());
  Status blas_err = CublasCall(**blas, CUBLAS_STATUS_INVALID_VALUE, "cublasSgemm");
  EXPECT_EQ(blas_err.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(blas_err.message(), HasSubstr("cublasSgemm failed: "));
  EXPECT_THAT(blas_err.message(), HasSubstr("cuBLAS status 7"));
  EXPECT_EQ(CublasCall(**blas, CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate").code(),
            absl::StatusCode::kResourceExhausted);
  Status dnn_err = CudnnCall(**dnn, CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionForward");
  EXPECT_EQ(dnn_err.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(dnn_err.message(), HasSubstr("cudnnConvolutionForward failed: CUDNN_STATUS_BAD_PARAM"));
}

}  // namespace
}  // namespace graphd::executor::gpu
