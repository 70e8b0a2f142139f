// The float32 LSTM's team path (executor/cpu/lstm_sequence.h: batches up to 16, hidden
// sizes from 128, two or more intra-op threads) against a double-precision reference
// written here: every direction, sequence lengths (rows that end early), peepholes,
// initial states, odd and even step counts, hidden sizes that split unevenly across
// threads (and threads left without units), R constant (packed once) or fed (read in
// place), and a deadline inside the sequence.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/lstm_sequence.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

struct LstmCase {
  int64_t steps, batch, input, hidden;
  std::string direction = "forward";
  bool lengths = false;    // sequence_lens with rows that end early (and one of 0 steps)
  bool peepholes = false;
  bool states = false;     // initial_h and initial_c
  bool constant_r = true;  // R a Const (packed at load) or a fed placeholder
};

int64_t Dirs(const LstmCase& c) { return c.direction == "bidirectional" ? 2 : 1; }

struct LstmInputs {
  Tensor x, w, r, b, lens, h0, c0, p;
};

LstmInputs MakeInputs(const LstmCase& c, std::mt19937& rng) {
  const int64_t d = Dirs(c), h = c.hidden;
  auto empty = [](DType t) { return Tensor::Allocate(t, Shape({0})).value(); };
  LstmInputs in{.x = Random<float>(Shape({c.steps, c.batch, c.input}), rng),
                .w = Random<float>(Shape({d, 4 * h, c.input}), rng, -0.2, 0.2),
                .r = Random<float>(Shape({d, 4 * h, h}), rng, -0.1, 0.1),
                .b = Random<float>(Shape({d, 8 * h}), rng, -0.5, 0.5),
                .lens = empty(DType::kInt32),
                .h0 = empty(DType::kFloat32),
                .c0 = empty(DType::kFloat32),
                .p = empty(DType::kFloat32)};
  if (c.lengths) {
    std::vector<int32_t> lens(c.batch);
    for (int64_t b = 0; b < c.batch; ++b) lens[b] = static_cast<int32_t>(b == 1 ? 0 : c.steps - b % c.steps);
    in.lens = Make<int32_t>(Shape({c.batch}), lens);
  }
  if (c.states) {
    in.h0 = Random<float>(Shape({d, c.batch, h}), rng);
    in.c0 = Random<float>(Shape({d, c.batch, h}), rng);
  }
  if (c.peepholes) in.p = Random<float>(Shape({d, 3 * h}), rng, -0.5, 0.5);
  return in;
}

struct Reference {
  std::vector<double> y, yh, yc;
};

double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// ONNX's LSTM (gates i, o, f, c; default activations) in doubles.
Reference ReferenceLstm(const LstmCase& c, const LstmInputs& in) {
  const int64_t dirs = Dirs(c), t_n = c.steps, bn = c.batch, h = c.hidden, ni = c.input;
  Reference ref{std::vector<double>(t_n * dirs * bn * h, 0), std::vector<double>(dirs * bn * h),
                std::vector<double>(dirs * bn * h)};
  auto at = [](const Tensor& t, int64_t i) { return double(t.data<float>()[i]); };
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = c.direction == "reverse" || d == 1;
    for (int64_t b = 0; b < bn; ++b) {
      const int64_t len = c.lengths ? in.lens.data<int32_t>()[b] : t_n;
      std::vector<double> hs(h, 0), cs(h, 0), gates(4 * h);
      if (c.states) {
        for (int64_t j = 0; j < h; ++j) {
          hs[j] = at(in.h0, (d * bn + b) * h + j);
          cs[j] = at(in.c0, (d * bn + b) * h + j);
        }
      }
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        for (int64_t row = 0; row < 4 * h; ++row) {
          double acc = at(in.b, d * 8 * h + row) + at(in.b, d * 8 * h + 4 * h + row);
          for (int64_t k = 0; k < ni; ++k) acc += at(in.x, (t * bn + b) * ni + k) * at(in.w, (d * 4 * h + row) * ni + k);
          for (int64_t k = 0; k < h; ++k) acc += hs[k] * at(in.r, (d * 4 * h + row) * h + k);
          gates[row] = acc;
        }
        for (int64_t j = 0; j < h; ++j) {
          auto peep = [&](int g) { return c.peepholes ? at(in.p, d * 3 * h + g * h + j) : 0.0; };
          const double i = Sigmoid(gates[j] + peep(0) * cs[j]);
          const double f = Sigmoid(gates[2 * h + j] + peep(2) * cs[j]);
          const double cc = std::tanh(gates[3 * h + j]);
          cs[j] = f * cs[j] + i * cc;
          const double o = Sigmoid(gates[h + j] + peep(1) * cs[j]);
          hs[j] = o * std::tanh(cs[j]);
          ref.y[((t * dirs + d) * bn + b) * h + j] = hs[j];
        }
      }
      for (int64_t j = 0; j < h; ++j) {
        ref.yh[(d * bn + b) * h + j] = hs[j];
        ref.yc[(d * bn + b) * h + j] = cs[j];
      }
    }
  }
  return ref;
}

// Runs LSTM on `in` (R a Const when c.constant_r) with `threads` intra-op threads.
StatusOr<std::vector<Tensor>> RunLstm(const LstmCase& c, const LstmInputs& in, int threads,
                                      const CancellationToken* token = nullptr) {
  cpu::SetIntraOpThreads(threads);
  Graph g;
  NodeSpec spec{.name = "out", .op = "LSTM",
                .attrs = {{"hidden_size", c.hidden}, {"direction", c.direction}}};
  Feeds feeds;
  const Tensor* values[] = {&in.x, &in.w, &in.r, &in.b, &in.lens, &in.h0, &in.c0, &in.p};
  for (int i = 0; i < 8; ++i) {
    const std::string name = "in" + std::to_string(i);
    const Node* node = nullptr;
    if (i == 2 && c.constant_r) {
      node = g.AddNode({.name = name, .op = "Const", .attrs = {{"dtype", DType::kFloat32}, {"value", in.r}}}).value();
    } else {
      node = AddPlaceholder(g, name, values[i]->dtype(), values[i]->shape());
      feeds.emplace_back(name, *values[i]);
    }
    spec.inputs.push_back({node, 0});
  }
  RETURN_IF_ERROR(g.AddNode(std::move(spec)).status());
  auto out = RunGraph(g, feeds, {"out:0", "out:1", "out:2"}, {}, nullptr, token);
  cpu::SetIntraOpThreads(0);
  return out;
}

void ExpectMatches(const LstmCase& c, int threads, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "steps " << c.steps << " batch " << c.batch << " input " << c.input
                                    << " hidden " << c.hidden << " " << c.direction << " lengths " << c.lengths
                                    << " peepholes " << c.peepholes << " states " << c.states << " constant R "
                                    << c.constant_r << " threads " << threads);
  std::mt19937 rng(seed);
  const LstmInputs in = MakeInputs(c, rng);
  auto out = RunLstm(c, in, threads);
  ASSERT_TRUE(out.ok()) << out.status();
  const Reference ref = ReferenceLstm(c, in);
  ExpectClose((*out)[0], ref.y, 1e-4, 2e-5);
  ExpectClose((*out)[1], ref.yh, 1e-4, 2e-5);
  ExpectClose((*out)[2], ref.yc, 1e-4, 2e-5);
}

TEST(LstmSequenceTest, ForwardBatchOneAsTheZooRunsIt) {
  ExpectMatches({.steps = 8, .batch = 1, .input = 24, .hidden = 128}, 2, 1);
  ExpectMatches({.steps = 7, .batch = 1, .input = 24, .hidden = 128}, 2, 2);  // odd: the state ends in the spare buffer
  ExpectMatches({.steps = 1, .batch = 1, .input = 24, .hidden = 128}, 2, 3);
}

TEST(LstmSequenceTest, DirectionsLengthsPeepholesAndStates) {
  uint32_t seed = 10;
  for (const char* direction : {"forward", "reverse", "bidirectional"}) {
    for (bool constant_r : {true, false}) {
      ExpectMatches({.steps = 5, .batch = 4, .input = 9, .hidden = 144, .direction = direction, .lengths = true,
                     .peepholes = true, .states = true, .constant_r = constant_r},
                    2, seed++);
      ExpectMatches({.steps = 6, .batch = 3, .input = 9, .hidden = 128, .direction = direction, .constant_r = constant_r},
                    2, seed++);
    }
  }
}

TEST(LstmSequenceTest, HiddenSizesThatSplitUnevenly) {
  // 130 units: blocks of 16 with a 2-unit tail; 3 threads get 48, 48, 34; 16 threads
  // leave seven of them without units (they still meet every step's barrier). Largest
  // team first: LLVM's libomp (the sanitizer build's) never frees the bookkeeping of a
  // team it grows, which LeakSanitizer reports.
  for (int threads : {16, 3, 2}) {
    for (bool constant_r : {true, false}) {
      ExpectMatches({.steps = 4, .batch = 2, .input = 5, .hidden = 130, .lengths = true, .peepholes = true,
                     .constant_r = constant_r},
                    threads, 40 + threads);
    }
  }
}

// A packed R serves up to 16 rows, four per pass over it: batches that leave 1, 2 or 3
// rows over, and 16, in every direction with rows that end early.
TEST(LstmSequenceTest, PackedBatchesUpToSixteenInGroupsOfFourRows) {
  uint32_t seed = 80;
  for (int64_t batch : {5, 6, 7, 16}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      ExpectMatches({.steps = 4, .batch = batch, .input = 6, .hidden = 130, .direction = direction, .lengths = true,
                     .peepholes = true, .states = true},
                    2, seed++);
    }
  }
}

TEST(LstmSequenceTest, WhichShapesTakeTheTeamPath) {
  EXPECT_TRUE(cpu::LstmSequenceFits(16, 128, 2, /*packed=*/true));
  EXPECT_FALSE(cpu::LstmSequenceFits(17, 128, 2, /*packed=*/true));
  EXPECT_TRUE(cpu::LstmSequenceFits(4, 128, 2, /*packed=*/false));
  EXPECT_FALSE(cpu::LstmSequenceFits(5, 128, 2, /*packed=*/false));
  EXPECT_FALSE(cpu::LstmSequenceFits(1, 128, 1, /*packed=*/true));  // one thread
  EXPECT_FALSE(cpu::LstmSequenceFits(1, 64, 2, /*packed=*/true));   // too small to split
}

TEST(LstmSequenceTest, LargerBatchesAndOneThreadTakeTheGeneralPathWithTheSameResults) {
  ExpectMatches({.steps = 3, .batch = 17, .input = 4, .hidden = 128, .lengths = true}, 2, 60);
  ExpectMatches({.steps = 3, .batch = 5, .input = 4, .hidden = 128, .lengths = true, .constant_r = false}, 2, 62);
  ExpectMatches({.steps = 3, .batch = 2, .input = 4, .hidden = 128, .peepholes = true}, 1, 61);
}

// A deadline that passes inside a long sequence stops the recurrence between steps:
// the run fails well before the time the whole sequence takes.
TEST(LstmSequenceTest, ADeadlineStopsTheRecurrenceBetweenSteps) {
  std::mt19937 rng(70);
  const LstmCase c{.steps = 20000, .batch = 1, .input = 4, .hidden = 128};
  const LstmInputs in = MakeInputs(c, rng);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunLstm(c, in, 2).ok());
  const auto whole = std::chrono::steady_clock::now() - start;
  // A twentieth of the run, and at most 5 ms (20000 steps take far longer): a first run
  // slowed by other processes must not give a deadline the second run can beat.
  const auto budget = std::min<std::chrono::steady_clock::duration>(whole / 20, std::chrono::milliseconds(5));
  const CancellationToken token(std::chrono::steady_clock::now() + budget);
  const auto cancelled_start = std::chrono::steady_clock::now();
  auto out = RunLstm(c, in, 2, &token);
  const auto cancelled = std::chrono::steady_clock::now() - cancelled_start;
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
  EXPECT_LT(cancelled, whole / 2) << "the recurrence ran on past its deadline";
}

// The units are split over the team OpenMP gives, which may be smaller than asked for
// (here a nested region: one thread): every unit is still computed, as with the team.
TEST(LstmSequenceTest, ATeamSmallerThanAskedForComputesEveryUnit) {
  std::mt19937 rng(9);
  const int64_t steps = 2, batch = 1, h = 128, input = 4;
  Tensor x = Random<float>(Shape({steps, batch, input}), rng), w = Random<float>(Shape({4 * h, input}), rng);
  Tensor r = Random<float>(Shape({4 * h, h}), rng, -0.1, 0.1);
  const std::vector<int64_t> lens(batch, steps);
  auto run = [&](bool nested, std::vector<float>& hs, std::vector<float>& cs, std::vector<float>& y) {
    hs.assign(batch * h, 0.f);
    cs.assign(batch * h, 0.f);
    y.assign(steps * batch * h, -7.f);
    const cpu::LstmSequence seq{.steps = steps, .batch = batch, .hidden = h, .input = input, .x = x.data<float>(),
                                .w = w.data<float>(), .r = r.data<float>(), .lens = lens.data(), .h = hs.data(),
                                .c = cs.data(), .y = y.data(), .y_step = batch * h};
    CancellationToken token;
    Status s;
    if (!nested) {
      s = cpu::RunLstmSequence(seq, 2, token);
    } else {
      const int levels = omp_get_max_active_levels();
      omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
      {
#pragma omp master
        s = cpu::RunLstmSequence(seq, 2, token);
      }
      omp_set_max_active_levels(levels);
    }
    ASSERT_TRUE(s.ok()) << s;
  };
  std::vector<float> h1, c1, y1, h2, c2, y2;
  run(false, h1, c1, y1);
  run(true, h2, c2, y2);
  int differ = 0;
  for (int64_t j = 0; j < h; ++j) differ += h1[j] != h2[j] || c1[j] != c2[j];
  EXPECT_EQ(differ, 0) << "units differ; e.g. unit 100: h " << h1[100] << " vs " << h2[100] << ", y[step 0] "
                       << y1[100] << " vs " << y2[100];
}

}  // namespace
}  // namespace graphd::executor::test
