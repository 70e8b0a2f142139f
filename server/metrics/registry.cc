#include "server/metrics/registry.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphd::server::metrics {
namespace {

void AtomicAdd(std::atomic<double>& a, double v) {
  double old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
  }
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);  // the shortest form that reads back exactly
  return ec == std::errc() ? std::string(buf, end) : absl::StrFormat("%.17g", v);
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// {a="x",b="y"} (with `extra` appended: le="..."), or "" without labels.
std::string Labels(const std::vector<std::string>& names, const std::vector<std::string>& values,
                   const std::string& extra = "") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StrAppend(&out, out.empty() ? "" : ",", names[i], "=\"", Escape(values[i]), "\"");
  }
  if (!extra.empty()) absl::StrAppend(&out, out.empty() ? "" : ",", extra);
  return out.empty() ? "" : absl::StrCat("{", out, "}");
}

void Header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

void Counter::Add(double v) { AtomicAdd(value_, v); }
void Gauge::Add(double v) { AtomicAdd(value_, v); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(sum_, v);
}

std::vector<uint64_t> Histogram::Cumulative() const {
  std::vector<uint64_t> out;
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += counts_[i].load(std::memory_order_relaxed);
    out.push_back(total);
  }
  return out;
}

std::vector<double> LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

std::vector<double> BatchSizeBuckets() { return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}; }

template <typename M>
M& Family<M>::With(const std::vector<std::string>& values) {
  absl::MutexLock lock(&mu_);
  auto& slot = metrics_[values];
  if (slot == nullptr) {
    if constexpr (std::is_same_v<M, Histogram>) {
      slot = std::make_unique<M>(bounds_);
    } else {
      slot = std::make_unique<M>();
    }
  }
  return *slot;
}

template <typename M>
void Family<M>::ForEach(const std::function<void(const std::vector<std::string>&, const M&)>& fn) const {
  absl::MutexLock lock(&mu_);
  for (const auto& [values, metric] : metrics_) fn(values, *metric);
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

Family<Counter>& Registry::AddCounter(std::string name, std::string help, std::vector<std::string> labels) {
  absl::MutexLock lock(&mu_);
  counters_.push_back(std::make_unique<Family<Counter>>(std::move(name), std::move(help), std::move(labels)));
  return *counters_.back();
}

Family<Gauge>& Registry::AddGauge(std::string name, std::string help, std::vector<std::string> labels) {
  absl::MutexLock lock(&mu_);
  gauges_.push_back(std::make_unique<Family<Gauge>>(std::move(name), std::move(help), std::move(labels)));
  return *gauges_.back();
}

Family<Histogram>& Registry::AddHistogram(std::string name, std::string help, std::vector<std::string> labels,
                                          std::vector<double> bounds) {
  absl::MutexLock lock(&mu_);
  histograms_.push_back(
      std::make_unique<Family<Histogram>>(std::move(name), std::move(help), std::move(labels), std::move(bounds)));
  return *histograms_.back();
}

void Registry::AddCollector(std::function<void(std::string& out)> collector) {
  absl::MutexLock lock(&mu_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::Expose() const {
  std::string out;
  absl::MutexLock lock(&mu_);
  for (const auto& f : counters_) {
    Header(out, f->name(), f->help(), "counter");
    f->ForEach([&](const std::vector<std::string>& values, const Counter& c) {
      absl::StrAppend(&out, f->name(), Labels(f->labels(), values), " ", Number(c.value()), "\n");
    });
  }
  for (const auto& f : gauges_) {
    Header(out, f->name(), f->help(), "gauge");
    f->ForEach([&](const std::vector<std::string>& values, const Gauge& g) {
      absl::StrAppend(&out, f->name(), Labels(f->labels(), values), " ", Number(g.value()), "\n");
    });
  }
  for (const auto& f : histograms_) {
    Header(out, f->name(), f->help(), "histogram");
    f->ForEach([&](const std::vector<std::string>& values, const Histogram& h) {
      const std::vector<uint64_t> counts = h.Cumulative();
      for (size_t i = 0; i < counts.size(); ++i) {
        const std::string le = i < h.bounds().size() ? Number(h.bounds()[i]) : "+Inf";
        absl::StrAppend(&out, f->name(), "_bucket", Labels(f->labels(), values, absl::StrCat("le=\"", le, "\"")), " ",
                        counts[i], "\n");
      }
      absl::StrAppend(&out, f->name(), "_sum", Labels(f->labels(), values), " ", Number(h.sum()), "\n");
      absl::StrAppend(&out, f->name(), "_count", Labels(f->labels(), values), " ", counts.back(), "\n");
    });
  }
  for (const auto& collect : collectors_) collect(out);
  return out;
}

void AppendGauges(std::string& out, const std::string& name, const std::string& help, const std::string& label,
                  const std::vector<std::pair<std::string, double>>& samples) {
  if (samples.empty()) return;
  Header(out, name, help, "gauge");
  for (const auto& [value, sample] : samples) {
    absl::StrAppend(&out, name, Labels({label}, {value}), " ", Number(sample), "\n");
  }
}

void AppendGauge(std::string& out, const std::string& name, const std::string& help, double value) {
  Header(out, name, help, "gauge");
  absl::StrAppend(&out, name, " ", Number(value), "\n");
}

void AppendCounter(std::string& out, const std::string& name, const std::string& help, double value) {
  Header(out, name, help, "counter");
  absl::StrAppend(&out, name, " ", Number(value), "\n");
}

}  // namespace graphd::server::metrics
