#include "executor/cpu/matmul_helper.h"

#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace graphd::executor::cpu {
namespace {

// How long the helper looks for the next offer after its last piece of work before it
// sleeps: long enough to span the gaps between the products of one run and, on a
// server answering back-to-back calls, the ~0.1-0.3 ms of gRPC work between two runs
// (measured on the MLP benchmark: 20 us left the first product of each run without
// help). A busy server thus keeps one core spinning, as ONNX Runtime's pool does.
constexpr auto kSpin = std::chrono::microseconds(300);

// A caller that waited longer than kLate for a half the helper had taken, the helper
// awake when offered, found it preempted (its half runs in about the caller's time):
// the box is loaded, where
// waiting on another thread costs more than it saves, so the next kBackOff pairs run
// on the caller alone.
constexpr auto kLate = std::chrono::microseconds(30);
constexpr int kBackOff = 32;

struct Offer {
  const std::function<void()>* work;
  std::exception_ptr error;
  std::atomic<bool> done{false};
};

class Helper {
 public:
  Helper() { std::thread([this] { Loop(); }).detach(); }

  void RunPair(const std::function<void()>& mine, const std::function<void()>& other, bool wake) {
    Offer offer{.work = &other};
    Offer* expected = nullptr;
    const bool asleep = sleeping_.load();
    const bool offered = (wake || !asleep) && !BackingOff() && slot_.compare_exchange_strong(expected, &offer);
    if (offered && sleeping_.load()) {
      std::lock_guard<std::mutex> lock(mu_);
      wake_.notify_one();
    }
    // An exception from this half waits for the other half (the helper's, once taken,
    // refers to this frame), then goes on to the caller instead of it.
    std::exception_ptr mine_error;
    try {
      mine();
    } catch (...) {
      mine_error = std::current_exception();
    }
    if (!offered) {
      if (mine_error) std::rethrow_exception(mine_error);
      other();
      return;
    }
    expected = &offer;
    if (slot_.compare_exchange_strong(expected, nullptr)) {  // not taken: withdrawn
      if (mine_error) std::rethrow_exception(mine_error);
      other();
      return;
    }
    // Taken: the helper runs it and then no longer touches `offer`.
    const auto start = std::chrono::steady_clock::now();
    for (int spins = 0; !offer.done.load(std::memory_order_acquire); ++spins) {
      if (spins < 4096) {
        _mm_pause();
      } else {
        std::this_thread::yield();
      }
    }
    // A helper that was asleep is late by its wake-up, which says nothing about the
    // box's load; counted as late, its first half after a pause (an idle client's next
    // call) started a back-off that put it to sleep again, and so on: a single client's
    // [16, 512] x [512, 512] ran both halves on one thread (kernels_bench BM_DenseLayer
    // 78 us, 43 without the back-off).
    if (!asleep && std::chrono::steady_clock::now() - start > kLate) skip_.store(kBackOff, std::memory_order_relaxed);
    if (mine_error) std::rethrow_exception(mine_error);
    if (offer.error) std::rethrow_exception(offer.error);
  }

  bool asleep() const { return sleeping_.load(); }
  int back_off() const { return skip_.load(std::memory_order_relaxed); }

 private:
  // Whether to skip offering this time: after a late helper, the next kBackOff pairs.
  bool BackingOff() {
    int left = skip_.load(std::memory_order_relaxed);
    while (left > 0 && !skip_.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
    }
    return left > 0;
  }

  void Loop() {
    for (;;) {
      Offer* offer = Next();
      try {
        (*offer->work)();
      } catch (...) {
        offer->error = std::current_exception();
      }
      offer->done.store(true, std::memory_order_release);
    }
  }

  // The next offer: spins for kSpin, then sleeps until one is posted.
  Offer* Next() {
    auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (int spins = 0;; ++spins) {
      if (slot_.load(std::memory_order_relaxed) != nullptr) {
        if (Offer* offer = slot_.exchange(nullptr)) return offer;
      }
      _mm_pause();
      if ((spins & 63) != 0) continue;
      // Gives the core to any thread waiting for it (an OpenMP team thread woken for a
      // parallel region: on 2 cores it waited out the whole spin, and the region's
      // first op, a [64, 256] LayerNorm, took 300 us instead of 10).
      std::this_thread::yield();
      if (std::chrono::steady_clock::now() < deadline) continue;
      std::unique_lock<std::mutex> lock(mu_);
      sleeping_.store(true);  // seq_cst, as the poster's load: one of us sees the other
      wake_.wait(lock, [&] { return slot_.load() != nullptr; });
      sleeping_.store(false);
      deadline = std::chrono::steady_clock::now() + kSpin;
    }
  }

  std::atomic<Offer*> slot_{nullptr};
  std::atomic<int> skip_{0};  // pairs left to run without offering (BackingOff)
  std::atomic<bool> sleeping_{false};
  std::mutex mu_;
  std::condition_variable wake_;
};

Helper& TheHelper() {
  static Helper* helper = new Helper();  // never destroyed: its thread runs until exit
  return *helper;
}

}  // namespace

void RunPairWithHelper(const std::function<void()>& mine, const std::function<void()>& other, bool wake) {
  TheHelper().RunPair(mine, other, wake);
}

bool HelperAsleepForTesting() { return TheHelper().asleep(); }
int HelperBackOffForTesting() { return TheHelper().back_off(); }

}  // namespace graphd::executor::cpu
