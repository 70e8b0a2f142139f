// CPU kernel micro-benchmarks through the real planner and executor: one node graphs
// (MatMul, a dense layer with constant weights, a classifier head, Add/Sub with broadcasting, Relu,
// Softmax, Sum) at a few sizes, a chain of five elementwise ops unfused (five nodes)
// and fused (one FusedElementwise node, as the elementwise_fusion pass writes it),
// attention's transposes, an LSTM layer, Swish alone and after convolutions, and
// layer normalisation.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <vector>

#include "compiler/passes/prune.h"
#include "dnnl.hpp"
#include "executor/cpu/cpu_device.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/swish.h"
#include "executor/runtime/executor.h"

namespace graphd {
namespace {

Tensor Filled(const Shape& shape, float v) {
  Tensor t = Tensor::Allocate(DType::kFloat32, shape).value();
  for (float& x : t.flat<float>()) x = v;
  return t;
}

const Node* Placeholder(Graph& g, const std::string& name, const Shape& shape) {
  return g.AddNode({.name = name, .op = "Placeholder",
                    .attrs = {{"dtype", DType::kFloat32}, {"shape", PartialShape(shape)}}})
      .value();
}

// Prunes `g` to its node "out", plans it on the CPU and runs it with `feeds` (for
// `feed_names`) once per iteration; a failed run ends the benchmark with its error.
void RunGraph(benchmark::State& state, const Graph& g, const std::vector<std::string>& feed_names,
              const std::vector<Tensor>& feeds) {
  static executor::cpu::CpuDevice device;
  auto spec = compiler::Prune(g, feed_names, std::vector<std::string>{"out"}, {}).value();
  auto plan = executor::Plan::Build(spec, device).value();
  VariableStore vars;
  CancellationToken token;
  for (auto _ : state) {
    auto out = executor::Execute(*plan, feeds, {.variables = &vars, .cancellation = &token});
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());  // a failed run is not a fast one
      break;
    }
    benchmark::DoNotOptimize(out);
  }
}

// Builds `op`(inputs...) and runs it repeatedly.
void RunOp(benchmark::State& state, const std::string& op, std::vector<Shape> shapes,
           double flops_per_run, AttrMap attrs = {}) {
  Graph g;
  std::vector<OutputRef> inputs;
  std::vector<std::string> feed_names;
  std::vector<Tensor> feeds;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    inputs.push_back({Placeholder(g, name, shapes[i]), 0});
    feed_names.push_back(name);
    feeds.push_back(Filled(shapes[i], 0.5f));
  }
  g.AddNode({.name = "out", .op = op, .inputs = inputs, .attrs = std::move(attrs)}).value();
  RunGraph(state, g, feed_names, feeds);
  if (flops_per_run > 0) {
    state.counters["GFLOP/s"] = benchmark::Counter(flops_per_run * state.iterations() / 1e9,
                                                   benchmark::Counter::kIsRate);
  }
}

void BM_MatMul(benchmark::State& state) {
  int64_t n = state.range(0);
  RunOp(state, "MatMul", {Shape({n, n}), Shape({n, n})}, 2.0 * n * n * n);
}
BENCHMARK(BM_MatMul)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// A dense layer x[m, 512] * W[512, 512] with W a Const (packed once, as the
// matmul_fusion pass marks model weights): batch-1 and few-row products are one pass
// over W, split by columns between two cores.
void BM_DenseLayer(benchmark::State& state) {
  const int64_t m = state.range(0), k = 512, n = 512;
  Graph g;
  OutputRef x{Placeholder(g, "x", Shape({m, k})), 0};
  OutputRef w{g.AddNode({.name = "w", .op = "Const", .attrs = {{"value", Filled(Shape({k, n}), 0.25f)}}}).value(), 0};
  g.AddNode({.name = "out", .op = "MatMul", .inputs = {x, w}, .attrs = {{"constant_weights", true}}}).value();
  RunGraph(state, g, {"x"}, {Filled(Shape({m, k}), 0.5f)});
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * m * k * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DenseLayer)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Unit(benchmark::kMicrosecond);

// A classifier head at batch 1: x[1, k] * W^T + b with W [n, k] a Const (torch's Linear,
// as the ONNX Gemm with transB imports), at the zoo's head shapes: MobileNetV3's
// 576x1024 and 1024x1000, EfficientNet's 1280x1000, ResNet-50's 2048x1000. Here the
// weights stay in the CPU's caches; after a CNN's layers they come from DRAM.
void BM_Classifier(benchmark::State& state) {
  const int64_t k = state.range(0), n = state.range(1);
  Graph g;
  OutputRef x{Placeholder(g, "x", Shape({1, k})), 0};
  OutputRef w{g.AddNode({.name = "w", .op = "Const", .attrs = {{"value", Filled(Shape({n, k}), 0.25f)}}}).value(), 0};
  OutputRef b{g.AddNode({.name = "b", .op = "Const", .attrs = {{"value", Filled(Shape({n}), 0.5f)}}}).value(), 0};
  g.AddNode({.name = "out", .op = "MatMul", .inputs = {x, w, b},
             .attrs = {{"constant_weights", true}, {"transpose_b", true}}})
      .value();
  RunGraph(state, g, {"x"}, {Filled(Shape({1, k}), 0.5f)});
  state.counters["GB/s"] = benchmark::Counter(4.0 * k * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Classifier)->Args({576, 1024})->Args({1024, 1000})->Args({1280, 1000})->Args({2048, 1000})
    ->Unit(benchmark::kMicrosecond);

void BM_AddBroadcast(benchmark::State& state) {
  int64_t n = state.range(0);
  RunOp(state, "Add", {Shape({n, 512}), Shape({512})}, 0);
}
BENCHMARK(BM_AddBroadcast)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

// Same-shape Add of n x 256 (a transformer's residual at sequence n) and a divide by a
// scalar (attention's query scaling).
// A squeeze-excitation's channel scale in channels-last layout (EfficientNet-B0's
// [1, 112, 112, 32] and [1, 56, 56, 144]; MobileNetV3-small's [1, 14, 14, 240]), the scale
// first as torch writes it.
void BM_ChannelScale(benchmark::State& state) {
  const int64_t hw = state.range(0), c = state.range(1);
  RunOp(state, "Mul", {Shape({1, 1, 1, c}), Shape({1, hw, hw, c})}, 0);
}
BENCHMARK(BM_ChannelScale)->Args({112, 32})->Args({56, 144})->Args({14, 240})->Unit(benchmark::kMicrosecond);

// The same scale moved into the next 1x1 convolution's filter (conv_input_scale.h):
// filter [o, c, 1, 1] * scale [c, 1, 1] (EfficientNet-B0's 16x32 and 40x240).
void BM_FilterScale(benchmark::State& state) {
  const int64_t o = state.range(0), c = state.range(1);
  RunOp(state, "Mul", {Shape({o, c, 1, 1}), Shape({c, 1, 1})}, 0);
}
BENCHMARK(BM_FilterScale)->Args({16, 32})->Args({40, 240})->Unit(benchmark::kMicrosecond);

// A CNN's first convolution on a 224x224 RGB image: 3x3 stride 2 into 16 channels
// (MobileNetV3-small, hard-swish) and into 32 (EfficientNet-B0, swish). Arg 2 = 1:
// reading the image channels-first and writing channels-last (input_channels_first,
// executor/cpu/conv_stem.h); 0: both channels-last (oneDNN, after the Transpose
// conv_layout inserts without the option, not timed here).
void BM_StemConv(benchmark::State& state) {
  const int64_t o = state.range(0), k = state.range(1);
  const bool direct = state.range(2) != 0;
  const int64_t pad = k / 2;
  const Shape x = direct ? Shape({1, 3, 224, 224}) : Shape({1, 224, 224, 3});
  AttrMap attrs{{"strides", IntList{2, 2}}, {"pads", IntList{pad, pad, pad, pad}}, {"channels_last", true},
                {"constant_filter", true}};
  if (direct) attrs["input_channels_first"] = true;
  if (o == 16) attrs["activation"] = std::string("HardSwish");
  if (o == 32) attrs["activation"] = std::string("Swish");
  RunOp(state, "ConvND", {x, Shape({o, 3, k, k}), Shape({o})}, 2.0 * 112 * 112 * o * 3 * k * k, std::move(attrs));
}
BENCHMARK(BM_StemConv)
    ->Args({16, 3, 0})->Args({16, 3, 1})->Args({32, 3, 0})->Args({32, 3, 1})
    ->Unit(benchmark::kMicrosecond);

// Swish over n float32 values in place, one thread: swish.h's loops (arg 1 = 0)
// against oneDNN's eltwise swish (1), which is what a Swish post-op costs inside a
// convolution. ns per value = time / n.
void BM_Swish(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool onednn = state.range(1) != 0;
  std::vector<float> source(n);
  for (int64_t i = 0; i < n; ++i) source[i] = 0.001f * static_cast<float>(i % 8001) - 4.f;
  std::vector<float> x = source;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  dnnl::memory mem(md, engine, x.data());
  dnnl::eltwise_forward prim(dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_swish, md, 1.f),
      engine));
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  for (auto _ : state) {
    // Fresh values each time: swish of swish of ... halves the negative values
    // towards the denormals, whose microcode assists would be timed instead.
    state.PauseTiming();
    std::copy(source.begin(), source.end(), x.begin());
    state.ResumeTiming();
    if (onednn) {
      prim.execute(stream, {{DNNL_ARG_SRC, mem}, {DNNL_ARG_DST, mem}});
      stream.wait();
    } else {
      executor::cpu::SwishRange(x.data(), n);
    }
    benchmark::ClobberMemory();
  }
  omp_set_num_threads(saved);
  state.counters["ns/value"] = benchmark::Counter(static_cast<double>(n) * state.iterations(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Swish)->ArgsProduct({{16384, 1 << 20}, {0, 1}})->Unit(benchmark::kMicrosecond);

// EfficientNet-B0's costliest Swish layers, channels-last, as conv_activation_fusion
// leaves them: the 1x1 expansion 16 -> 96 at 112x112 and the 3x3 depthwise over 96
// channels at stride 2. Arg 1 = 0: no activation, 1: Swish.
void BM_ConvSwish(benchmark::State& state) {
  const bool depthwise = state.range(0) != 0;
  AttrMap attrs{{"channels_last", true}, {"constant_filter", true}};
  if (state.range(1) != 0) attrs["activation"] = std::string("Swish");
  if (!depthwise) {
    RunOp(state, "ConvND", {Shape({1, 112, 112, 16}), Shape({96, 16, 1, 1}), Shape({96})},
          2.0 * 112 * 112 * 96 * 16, std::move(attrs));
    return;
  }
  attrs["group"] = int64_t{96};
  attrs["strides"] = IntList{2, 2};
  attrs["pads"] = IntList{1, 1, 1, 1};
  RunOp(state, "ConvND", {Shape({1, 112, 112, 96}), Shape({96, 1, 3, 3}), Shape({96})}, 2.0 * 56 * 56 * 96 * 9,
        std::move(attrs));
}
BENCHMARK(BM_ConvSwish)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

// MobileNetV3-small's first block after the stem, channels-last as the model runs it:
// the 3x3 depthwise over 16 channels at stride 2 (112x112 -> 56x56, Relu; arg 0) and
// features.2's 1x1 expansion 16 -> 72 at 56x56 (Relu; arg 1); arg 2: the depthwise on
// an 8x8 input, whose time is the convolution call's fixed cost (dnnl_prepared.h).
void BM_MobileNetV3Head(benchmark::State& state) {
  AttrMap attrs{{"channels_last", true}, {"constant_filter", true}, {"activation", std::string("Relu")}};
  if (state.range(0) == 1) {
    RunOp(state, "ConvND", {Shape({1, 56, 56, 16}), Shape({72, 16, 1, 1}), Shape({72})}, 2.0 * 56 * 56 * 72 * 16,
          std::move(attrs));
    return;
  }
  attrs["group"] = int64_t{16};
  attrs["strides"] = IntList{2, 2};
  attrs["pads"] = IntList{1, 1, 1, 1};
  if (state.range(0) == 2) {
    RunOp(state, "ConvND", {Shape({1, 8, 8, 16}), Shape({16, 1, 3, 3}), Shape({16})}, 0, std::move(attrs));
    return;
  }
  RunOp(state, "ConvND", {Shape({1, 112, 112, 16}), Shape({16, 1, 3, 3}), Shape({16})}, 2.0 * 56 * 56 * 16 * 9,
        std::move(attrs));
}
BENCHMARK(BM_MobileNetV3Head)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// 3x3 convolutions, channels-last with a packed filter and Relu, to hold against this
// machine's FMA peak (BM_FmaPeak): ResNet-50's 64 -> 64 channels at 56x56, VGG-11's
// 64 -> 128 at 112x112 and ResNet-50's 512 -> 512 at 7x7 (args: in, out, size).
void BM_Conv3x3(benchmark::State& state) {
  const int64_t c = state.range(0), o = state.range(1), hw = state.range(2);
  RunOp(state, "ConvND", {Shape({1, hw, hw, c}), Shape({o, c, 3, 3}), Shape({o})}, 2.0 * hw * hw * o * c * 9,
        AttrMap{{"channels_last", true},
                {"constant_filter", true},
                {"pads", IntList{1, 1, 1, 1}},
                {"activation", std::string("Relu")}});
}
BENCHMARK(BM_Conv3x3)->Args({64, 64, 56})->Args({64, 128, 112})->Args({512, 512, 7})->Unit(benchmark::kMicrosecond);

// 12 independent chains of FMAs, `n` steps: the float32 peak of one core (AVX-512, or
// AVX2 + FMA without it).
constexpr int kFmaChains = 12;
__attribute__((target("avx512f"))) float FmaChains512(int64_t n) {
  __m512 a[kFmaChains];
  for (int i = 0; i < kFmaChains; ++i) a[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
  for (int64_t k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kFmaChains; ++i) a[i] = _mm512_fmadd_ps(a[i], b, c);
  }
  __m512 sum = a[0];
  for (int i = 1; i < kFmaChains; ++i) sum = _mm512_add_ps(sum, a[i]);
  float out[16];
  _mm512_storeu_ps(out, sum);
  float total = 0;
  for (float v : out) total += v;
  return total;
}
__attribute__((target("avx2,fma"))) float FmaChains256(int64_t n) {
  __m256 a[kFmaChains];
  for (int i = 0; i < kFmaChains; ++i) a[i] = _mm256_set1_ps(0.001f * static_cast<float>(i));
  const __m256 b = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
  for (int64_t k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kFmaChains; ++i) a[i] = _mm256_fmadd_ps(a[i], b, c);
  }
  __m256 sum = a[0];
  for (int i = 1; i < kFmaChains; ++i) sum = _mm256_add_ps(sum, a[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  float total = 0;
  for (float v : out) total += v;
  return total;
}

// The float32 FMA peak of the OpenMP team (every thread running FmaChains): the
// ceiling for the GFLOP/s counters above.
void BM_FmaPeak(benchmark::State& state) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    state.SkipWithError("no AVX2+FMA");
    return;
  }
  constexpr int64_t kSteps = 1 << 20;
  const int lanes = avx512 ? 16 : 8;
  int threads = 1;
  float sink = 0;
  for (auto _ : state) {
#pragma omp parallel reduction(+ : sink)
    {
#pragma omp single
      threads = omp_get_num_threads();
      sink += avx512 ? FmaChains512(kSteps) : FmaChains256(kSteps);
    }
  }
  benchmark::DoNotOptimize(sink);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * kFmaChains * lanes * kSteps * threads * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
}
BENCHMARK(BM_FmaPeak)->Unit(benchmark::kMillisecond)->UseRealTime();

// EfficientNet's 1x1 projection 144 -> 24 at 56x56 over channels-last data, its filter
// a Const (arg 1, packed once) or fed (0: reordered into oneDNN's layout each call;
// before that oneDNN ran its reference convolution, 32 ms).
void BM_ChannelsLastFilter(benchmark::State& state) {
  AttrMap attrs{{"channels_last", true}, {"constant_filter", state.range(0) != 0}};
  RunOp(state, "ConvND", {Shape({1, 56, 56, 144}), Shape({24, 144, 1, 1}), Shape({24})}, 2.0 * 56 * 56 * 144 * 24,
        std::move(attrs));
}
BENCHMARK(BM_ChannelsLastFilter)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// LayerNormalization over the last axis with scale and bias: a transformer encoder's
// [64, 256] (arg 0), ViT-B's [197, 768] (1), ConvNeXt's channels at 56x56 (2).
void BM_LayerNorm(benchmark::State& state) {
  static const std::vector<std::pair<Shape, int64_t>> kCases = {
      {Shape({1, 64, 256}), 256}, {Shape({1, 197, 768}), 768}, {Shape({1, 56, 56, 96}), 96}};
  const auto& [x, c] = kCases[state.range(0)];
  RunOp(state, "LayerNormalization", {x, Shape({c}), Shape({c})}, 0, {{"axis", int64_t{-1}}});
}
BENCHMARK(BM_LayerNorm)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// A feed-forward layer's first product and its exact GELU (ConvNeXt's stage 1, 3136 x
// 96 x 384; ViT-B's MLP, 197 x 768 x 3072): arg 0 = 1 with the GELU fused into the
// MatMul (oneDNN's post-op, matmul_fusion's attribute), 0 as a separate Gelu node.
void BM_MatMulGelu(benchmark::State& state) {
  const bool fused = state.range(0) != 0;
  const int64_t m = state.range(1), k = state.range(2), n = state.range(3);
  Graph g;
  OutputRef x{Placeholder(g, "x", Shape({m, k})), 0};
  OutputRef w{g.AddNode({.name = "w", .op = "Const", .attrs = {{"value", Filled(Shape({k, n}), 0.01f)}}}).value(), 0};
  AttrMap attrs{{"constant_weights", true}};
  if (fused) attrs["activation"] = std::string("Gelu");
  OutputRef mm{g.AddNode({.name = fused ? "out" : "mm", .op = "MatMul", .inputs = {x, w}, .attrs = attrs}).value(), 0};
  if (!fused) g.AddNode({.name = "out", .op = "Gelu", .inputs = {mm}, .attrs = {{"approximate", false}}}).value();
  RunGraph(state, g, {"x"}, {Filled(Shape({m, k}), 0.5f)});
}
BENCHMARK(BM_MatMulGelu)
    ->ArgsProduct({{0, 1}, {3136}, {96}, {384}})
    ->ArgsProduct({{0, 1}, {197}, {768}, {3072}})
    ->Unit(benchmark::kMicrosecond);

// Shapes where oneDNN 2.6 has only its reference implementation, which the kernels now
// detect (dnnl_util.h IsReference) and leave for their own loops: a Sub broadcasting
// over two axes, (4, 6, 2, 12000) - (1, 6, 1, 12000) (arg 0; 34 ms on oneDNN), and a
// Max over the first and last axes of (16, 256, 64) (1).
void BM_OneDnnReferenceShapes(benchmark::State& state) {
  if (state.range(0) == 0) return RunOp(state, "Sub", {Shape({4, 6, 2, 12000}), Shape({1, 6, 1, 12000})}, 0);
  RunOp(state, "Max", {Shape({16, 256, 64})}, 0, {{"axis", IntList{0, 2}}});
}
BENCHMARK(BM_OneDnnReferenceShapes)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_AddSame(benchmark::State& state) {
  int64_t n = state.range(0);
  RunOp(state, "Add", {Shape({n, 256}), Shape({n, 256})}, 0);
}
BENCHMARK(BM_AddSame)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
void BM_DivScalar(benchmark::State& state) {
  int64_t n = state.range(0);
  RunOp(state, "Div", {Shape({n, 256}), Shape({})}, 0);
}
BENCHMARK(BM_DivScalar)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// Broadcasting along the last axis of a 4-D tensor (LayerNorm over NHWC channels in
// every ConvNeXt block): x - mean with mean (1,56,56,1). Arg 0: the full operand first
// (oneDNN's binary primitive), 1: the broadcast operand first (the plain loops).
void BM_SubBroadcastLastAxis(benchmark::State& state) {
  const Shape full({1, 56, 56, 96}), mean({1, 56, 56, 1});
  if (state.range(0) == 0) {
    RunOp(state, "Sub", {full, mean}, 0);
  } else {
    RunOp(state, "Sub", {mean, full}, 0);
  }
}
BENCHMARK(BM_SubBroadcastLastAxis)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_Relu(benchmark::State& state) { RunOp(state, "Relu", {Shape({state.range(0), 512})}, 0); }
BENCHMARK(BM_Relu)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_Softmax(benchmark::State& state) { RunOp(state, "Softmax", {Shape({state.range(0), 1000})}, 0); }
BENCHMARK(BM_Softmax)->Arg(1)->Arg(64)->Unit(benchmark::kMicrosecond);

// Attention weights: a transformer encoder's [4, 64, 64] (arg 0), ViT-B/16's [12, 197, 197] (arg 1).
void BM_SoftmaxAttention(benchmark::State& state) {
  RunOp(state, "Softmax", {state.range(0) == 0 ? Shape({4, 64, 64}) : Shape({12, 197, 197})}, 0);
}
BENCHMARK(BM_SoftmaxAttention)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Channels-last max pools: 0 ResNet's stem pool (3x3, stride 2, pad 1 over
// [1, 112, 112, 64]), 1 VGG's first (2x2, stride 2 over [1, 224, 224, 64]), 2 VGG's
// fourth ([1, 28, 28, 512]).
void BM_MaxPool(benchmark::State& state) {
  struct Case {
    int64_t hw, c, k, s, p;
  };
  static constexpr Case kCases[] = {{112, 64, 3, 2, 1}, {224, 64, 2, 2, 0}, {28, 512, 2, 2, 0}};
  const Case& c = kCases[state.range(0)];
  RunOp(state, "MaxPoolND", {Shape({1, c.hw, c.hw, c.c})}, 0,
        {{"channels_last", true},
         {"kernel_shape", IntList{c.k, c.k}},
         {"strides", IntList{c.s, c.s}},
         {"pads", IntList{c.p, c.p, c.p, c.p}}});
}
BENCHMARK(BM_MaxPool)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// Global average pools over channels-last data, EfficientNet-B0's squeeze-and-excite
// inputs: [1, 112, 112, 32], [1, 56, 56, 144], [1, 14, 14, 672], [1, 7, 7, 1152].
void BM_GlobalAverage(benchmark::State& state) {
  static constexpr int64_t kCases[][2] = {{112, 32}, {56, 144}, {14, 672}, {7, 1152}};
  const int64_t hw = kCases[state.range(0)][0], c = kCases[state.range(0)][1];
  RunOp(state, "AvgPoolND", {Shape({1, hw, hw, c})}, 0,
        {{"channels_last", true}, {"kernel_shape", IntList{hw, hw}}});
}
BENCHMARK(BM_GlobalAverage)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

// A batch norm and Relu fused over channels-last data (DenseNet's pre-activations:
// relu(x * scale + shift), per-channel operands): [1, 56, 56, 128], [1, 28, 28, 192],
// [1, 14, 14, 512], [1, 7, 7, 1024].
void BM_ChannelAffineRelu(benchmark::State& state) {
  static constexpr int64_t kCases[][2] = {{56, 128}, {28, 192}, {14, 512}, {7, 1024}};
  const int64_t hw = kCases[state.range(0)][0], c = kCases[state.range(0)][1];
  RunOp(state, "FusedElementwise", {Shape({1, hw, hw, c}), Shape({c}), Shape({c})}, 0,
        {{"program", std::string("Mul x0 x1; Add t0 x2; Relu t1")}});
}
BENCHMARK(BM_ChannelAffineRelu)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

// Means over part of the axes: NHWC's H and W (Keras' global average pool, arg 0),
// NCHW's (1), a row's (2), and a leading axis (3). 0 and 3 run graphd's loops
// (reduce_block.h SumMiddle), 1 and 2 oneDNN's reduction.
void BM_MeanAxes(benchmark::State& state) {
  switch (state.range(0)) {
    case 0: return RunOp(state, "Mean", {Shape({1, 56, 56, 256})}, 0, {{"axis", IntList{1, 2}}, {"keep_dims", true}});
    case 1: return RunOp(state, "Mean", {Shape({1, 256, 56, 56})}, 0, {{"axis", IntList{2, 3}}, {"keep_dims", true}});
    case 2: return RunOp(state, "Mean", {Shape({64, 256})}, 0, {{"axis", IntList{1}}, {"keep_dims", true}});
    default: return RunOp(state, "Mean", {Shape({197, 768})}, 0, {{"axis", IntList{0}}});
  }
}
BENCHMARK(BM_MeanAxes)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

// Max over the same axes as BM_MeanAxes (0-3) and a long row (4: [1, 2^20] over axis 1).
// Arg 1 = 0: graphd's kernel (reduce_block.h: NaNs propagate, as in TensorFlow);
// 1: oneDNN 2.6's reduction_max on the same data (which drops NaNs), for comparison.
void BM_MaxAxes(benchmark::State& state) {
  static const std::vector<std::pair<Shape, IntList>> kCases = {
      {Shape({1, 56, 56, 256}), {1, 2}}, {Shape({1, 256, 56, 56}), {2, 3}}, {Shape({64, 256}), {1}},
      {Shape({197, 768}), {0}}, {Shape({1, 1 << 20}), {1}}};
  const auto& [shape, axes] = kCases[state.range(0)];
  if (state.range(1) == 0) return RunOp(state, "Max", {shape}, 0, {{"axis", axes}, {"keep_dims", true}});
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  dnnl::memory::dims src(shape.dims().begin(), shape.dims().end()), dst = src;
  for (int64_t a : axes) dst[a] = 1;
  std::vector<float> x(shape.num_elements(), 0.5f), y(shape.num_elements());
  const dnnl::memory::desc sd = executor::cpu::PlainDesc(src), dd = executor::cpu::PlainDesc(dst);
  dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(dnnl::algorithm::reduction_max, sd, dd, 0.f, 0.f), engine);
  dnnl::reduction prim(pd);
  dnnl::memory ms(sd, engine, x.data()), md(dd, engine, y.data());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}});
    stream.wait();
  }
  state.SetLabel(pd.impl_info_str());
}
BENCHMARK(BM_MaxAxes)->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})->Unit(benchmark::kMicrosecond);

void BM_SumAll(benchmark::State& state) { RunOp(state, "Sum", {Shape({state.range(0), 512})}, 0); }
BENCHMARK(BM_SumAll)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

// tanh(x * y + 1) * 0.5 - x, or with Maximum(., 0) for Tanh when `cheap`: five nodes
// (state.range(0) == 0) or one FusedElementwise (1), over state.range(1) floats.
void ElementwiseChain(benchmark::State& state, bool cheap) {
  const Shape shape({state.range(1)});
  Graph g;
  OutputRef x{Placeholder(g, "x", shape), 0}, y{Placeholder(g, "y", shape), 0};
  auto add = [&](const std::string& name, const std::string& op, std::vector<OutputRef> in) -> OutputRef {
    return {g.AddNode({.name = name, .op = op, .inputs = std::move(in)}).value(), 0};
  };
  auto scalar = [&](const std::string& name, float v) -> OutputRef {
    return {g.AddNode({.name = name, .op = "Const", .attrs = {{"value", Tensor::Scalar<float>(v)}}}).value(), 0};
  };
  if (state.range(0) == 0) {
    OutputRef t = add("m", "Mul", {x, y});
    t = add("a", "Add", {t, scalar("one", 1.f)});
    t = cheap ? add("t", "Maximum", {t, scalar("zero", 0.f)}) : add("t", "Tanh", {t});
    t = add("h", "Mul", {t, scalar("half", 0.5f)});
    add("out", "Sub", {t, x});
  } else {
    const std::string act = cheap ? "Maximum t1 #0" : "Tanh t1";
    g.AddNode({.name = "out", .op = "FusedElementwise", .inputs = {x, y},
               .attrs = {{"program", "Mul x0 x1; Add t0 #1; " + act + "; Mul t2 #0.5; Sub t3 x0"}}})
        .value();
  }
  RunGraph(state, g, {"x", "y"}, {Filled(shape, 0.5f), Filled(shape, -0.25f)});
  state.SetItemsProcessed(state.iterations() * state.range(1));
}

void BM_ElementwiseChainTanh(benchmark::State& state) { ElementwiseChain(state, false); }
BENCHMARK(BM_ElementwiseChainTanh)->ArgsProduct({{0, 1}, {1024, 65536, 1 << 20}})->Unit(benchmark::kMicrosecond);
void BM_ElementwiseChainCheap(benchmark::State& state) { ElementwiseChain(state, true); }
BENCHMARK(BM_ElementwiseChainCheap)->ArgsProduct({{0, 1}, {1024, 65536, 1 << 20}})->Unit(benchmark::kMicrosecond);

// The transposes of a transformer encoder's attention at sequence 64, 8 heads of 32
// (bench/models/export_models.py's encoder, batch 1): the heads out of [seq, heads,
// dim] (0), the keys' [heads, dim, seq] (1), and [1, seq, d] to [seq, 1, d], which
// moves only a size-1 axis (2); and a 224x224 image to channels-last and back (3, 4:
// the conv_layout pass's transposes at a CNN's input); ViT-B/16's keys [heads, dim,
// seq] from [197, 12, 64] (5) and its heads out of it (6).
void BM_Transpose(benchmark::State& state) {
  switch (state.range(0)) {
    case 5:
      return RunOp(state, "Transpose", {Shape({197, 12, 64})}, 0, {{"perm", IntList{1, 2, 0}}});
    case 6:
      return RunOp(state, "Transpose", {Shape({197, 12, 64})}, 0, {{"perm", IntList{1, 0, 2}}});
    case 0:
      return RunOp(state, "Transpose", {Shape({64, 8, 32})}, 0, {{"perm", IntList{1, 0, 2}}});
    case 1:
      return RunOp(state, "Transpose", {Shape({64, 8, 32})}, 0, {{"perm", IntList{1, 2, 0}}});
    case 3:
      return RunOp(state, "Transpose", {Shape({1, 3, 224, 224})}, 0, {{"perm", IntList{0, 2, 3, 1}}});
    case 4:
      return RunOp(state, "Transpose", {Shape({1, 224, 224, 3})}, 0, {{"perm", IntList{0, 3, 1, 2}}});
    default:
      return RunOp(state, "Transpose", {Shape({1, 64, 256})}, 0, {{"perm", IntList{1, 0, 2}}});
  }
}
BENCHMARK(BM_Transpose)->DenseRange(0, 6)->Unit(benchmark::kMicrosecond);

// One LSTM layer of the zoo's model (bench/models/export_models.py: hidden 256, 32
// steps; batch 1, and 16): input width 64 (its first layer) or 256 (its second). W, R
// and B constants, states fed, as torch exports them; sequence_lens and peepholes absent.
void BM_Lstm(benchmark::State& state) {
  const int64_t in = state.range(0), h = 256, steps = 32, batch = state.range(1);
  Graph g;
  std::vector<OutputRef> inputs;
  std::vector<std::string> feed_names;
  std::vector<Tensor> feeds;
  const std::vector<Shape> shapes = {Shape({steps, batch, in}), Shape({1, 4 * h, in}), Shape({1, 4 * h, h}),
                                     Shape({1, 8 * h}),         Shape({0}),              Shape({1, batch, h}),
                                     Shape({1, batch, h}),      Shape({0})};
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    const DType dtype = i == 4 ? DType::kInt32 : DType::kFloat32;  // sequence_lens
    Tensor value = i == 4 ? Tensor::Allocate(dtype, shapes[i]).value() : Filled(shapes[i], i == 0 ? 0.5f : 0.01f);
    if (i >= 1 && i <= 3) {  // W, R, B: a model's weights, constants
      inputs.push_back({g.AddNode({.name = name, .op = "Const", .attrs = {{"dtype", dtype}, {"value", value}}}).value(),
                        0});
      continue;
    }
    inputs.push_back({g.AddNode({.name = name, .op = "Placeholder",
                                 .attrs = {{"dtype", dtype}, {"shape", PartialShape(shapes[i])}}})
                          .value(),
                      0});
    feed_names.push_back(name);
    feeds.push_back(value);
  }
  g.AddNode({.name = "out", .op = "LSTM", .inputs = inputs, .attrs = {{"hidden_size", h}}}).value();
  RunGraph(state, g, feed_names, feeds);
}
BENCHMARK(BM_Lstm)->ArgsProduct({{64, 256}, {1, 16}})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace graphd

BENCHMARK_MAIN();
