// The Prometheus metrics of inference requests (labels: the served model's name and
// version, never a name a client made up: requests for unknown models count under
// model="").
#ifndef GRAPHD_SERVER_SERVING_SERVING_METRICS_H_
#define GRAPHD_SERVER_SERVING_SERVING_METRICS_H_

#include "server/metrics/registry.h"

namespace graphd::server::serving {

struct ServingMetrics {
  explicit ServingMetrics(metrics::Registry& r)
      : requests(r.AddCounter("graphd_inference_requests_total", "Inference requests by model, version and status code",
                              {"model", "version", "code"})),
        duration(r.AddHistogram("graphd_inference_request_duration_seconds",
                                "Inference request latency in the server, from arrival to response",
                                {"model", "version"}, metrics::LatencyBuckets())),
        queue(r.AddHistogram("graphd_inference_queue_duration_seconds",
                             "Time a request waited before its execution started (the batcher's queue)",
                             {"model", "version"}, metrics::LatencyBuckets())),
        compute(r.AddHistogram("graphd_inference_compute_duration_seconds", "Model execution time (per execution)",
                               {"model", "version"}, metrics::LatencyBuckets())),
        batch_size(r.AddHistogram("graphd_inference_batch_size", "Rows per model execution", {"model"},
                                  metrics::BatchSizeBuckets())),
        inflight(r.AddGauge("graphd_inference_inflight", "Inference requests in the server now", {"model"})) {}

  metrics::Family<metrics::Counter>& requests;
  metrics::Family<metrics::Histogram>& duration;
  metrics::Family<metrics::Histogram>& queue;
  metrics::Family<metrics::Histogram>& compute;
  metrics::Family<metrics::Histogram>& batch_size;
  metrics::Family<metrics::Gauge>& inflight;
};

}  // namespace graphd::server::serving

#endif  // GRAPHD_SERVER_SERVING_SERVING_METRICS_H_
