#include "server/metrics/registry.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::server::metrics {
namespace {

using ::testing::HasSubstr;

TEST(RegistryTest, ExposesCountersGaugesAndHistogramsInTheTextFormat) {
  Registry r;
  auto& requests = r.AddCounter("x_requests_total", "Requests", {"model", "code"});
  requests.With({"m\"1", "OK"}).Add();
  requests.With({"m\"1", "OK"}).Add(2);
  r.AddGauge("x_inflight", "In flight").With({}).Set(3);
  auto& h = r.AddHistogram("x_seconds", "Latency", {"model"}, {0.1, 1}).With({"m"});
  h.Observe(0.05);
  h.Observe(0.5);
  h.Observe(5);
  r.AddCollector([](std::string& out) { AppendGauge(out, "x_sessions", "Sessions", 7); });
  const std::string text = r.Expose();
  EXPECT_THAT(text, HasSubstr("# TYPE x_requests_total counter\n"));
  EXPECT_THAT(text, HasSubstr("x_requests_total{model=\"m\\\"1\",code=\"OK\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("x_inflight 3\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{model=\"m\",le=\"0.1\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{model=\"m\",le=\"1\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{model=\"m\",le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_sum{model=\"m\"} 5.55\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_count{model=\"m\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE x_sessions gauge\nx_sessions 7\n"));
}

}  // namespace
}  // namespace graphd::server::metrics
