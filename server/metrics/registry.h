// Prometheus metrics: counters, gauges and histograms with labels, and their text
// exposition format (version 0.0.4), which GET /metrics serves (metrics_http.h).
// Debian 12 has no prometheus-cpp, so this is a small implementation of what graphd
// uses. Values are updated with atomics; a family's label sets are created under its
// lock and never removed (callers keep the label values bounded: model names and
// versions, status codes). Collectors add values computed at scrape time (sessions,
// memory, cache counters).
//
// Thread-safe.
#ifndef GRAPHD_SERVER_METRICS_REGISTRY_H_
#define GRAPHD_SERVER_METRICS_REGISTRY_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace graphd::server::metrics {

class Counter {
 public:
  void Add(double v = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);  // ascending upper bounds; +Inf is implied
  void Observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative counts per bound (then +Inf), and the sum.
  std::vector<uint64_t> Cumulative() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // per bucket, +Inf last
  std::atomic<double> sum_{0};
};

// Bucket bounds: seconds for latencies (100 us .. 60 s), and batch sizes (1 .. 1024).
std::vector<double> LatencyBuckets();
std::vector<double> BatchSizeBuckets();

// One metric name with labels.
template <typename M>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> labels, std::vector<double> bounds = {})
      : name_(std::move(name)), help_(std::move(help)), labels_(std::move(labels)), bounds_(std::move(bounds)) {}
  // The metric for `values` (one per label), made on first use. Lives as long as the family.
  M& With(const std::vector<std::string>& values);
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& labels() const { return labels_; }
  // Every label set and its metric, in label order.
  void ForEach(const std::function<void(const std::vector<std::string>&, const M&)>& fn) const;

 private:
  const std::string name_, help_;
  const std::vector<std::string> labels_;
  const std::vector<double> bounds_;
  mutable absl::Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> metrics_ ABSL_GUARDED_BY(mu_);
};

class Registry {
 public:
  Family<Counter>& AddCounter(std::string name, std::string help, std::vector<std::string> labels = {});
  Family<Gauge>& AddGauge(std::string name, std::string help, std::vector<std::string> labels = {});
  Family<Histogram>& AddHistogram(std::string name, std::string help, std::vector<std::string> labels,
                                  std::vector<double> bounds);
  // Called at each scrape to append complete families in the text format (see
  // AppendGauge/AppendCounter).
  void AddCollector(std::function<void(std::string& out)> collector);
  // The text exposition of everything.
  std::string Expose() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Family<Counter>>> counters_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Family<Gauge>>> gauges_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Family<Histogram>>> histograms_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void(std::string&)>> collectors_ ABSL_GUARDED_BY(mu_);
};

// One unlabelled sample with its HELP and TYPE lines, for collectors.
void AppendGauge(std::string& out, const std::string& name, const std::string& help, double value);
void AppendCounter(std::string& out, const std::string& name, const std::string& help, double value);
// One sample per (label value, sample) of `label`, with the HELP and TYPE lines (none when empty).
void AppendGauges(std::string& out, const std::string& name, const std::string& help, const std::string& label,
                  const std::vector<std::pair<std::string, double>>& samples);

}  // namespace graphd::server::metrics

#endif  // GRAPHD_SERVER_METRICS_REGISTRY_H_
