#include "server/audit_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace graphd::server {
namespace {

AuditRecord Example() {
  return {.protocol = "grpc",
          .method = "RunCallable",
          .tenant = "alice",
          .session = "0123abcd",
          .peer = "ipv4:127.0.0.1:5555",
          .code = absl::StatusCode::kResourceExhausted,
          .duration_us = 1234,
          .request_bytes = 100,
          .response_bytes = 0};
}

constexpr int64_t kMicros = 1764151871123456;  // 2025-11-26T10:11:11.123456Z

TEST(AuditLog, TextLinesAreKeyValuePairs) {
  EXPECT_EQ(FormatAudit(Example(), kMicros, false),
            "2025-11-26T10:11:11.123456Z audit protocol=grpc method=RunCallable tenant=alice session=0123abcd "
            "peer=ipv4:127.0.0.1:5555 status=RESOURCE_EXHAUSTED duration_us=1234 request_bytes=100 response_bytes=0");
}

TEST(AuditLog, TextQuotesOddValuesAndMarksEmptyOnes) {
  AuditRecord r = Example();
  r.tenant = "";
  r.method = "POST /v2/models/m/infer";
  r.http_status = 404;
  const std::string line = FormatAudit(r, kMicros, false);
  EXPECT_THAT(line, ::testing::HasSubstr(" method=\"POST /v2/models/m/infer\" tenant=- "));
  EXPECT_THAT(line, ::testing::HasSubstr(" status=404 "));
}

TEST(AuditLog, JsonLinesAreOneObject) {
  AuditRecord r = Example();
  r.session = "a\"b\\c\n";
  EXPECT_EQ(FormatAudit(r, kMicros, true),
            "{\"time\":\"2025-11-26T10:11:11.123456Z\",\"log\":\"audit\",\"protocol\":\"grpc\","
            "\"method\":\"RunCallable\",\"tenant\":\"alice\",\"session\":\"a\\\"b\\\\c\\u000a\","
            "\"peer\":\"ipv4:127.0.0.1:5555\",\"status\":\"RESOURCE_EXHAUSTED\",\"duration_us\":1234,"
            "\"request_bytes\":100,\"response_bytes\":0}");
}

}  // namespace
}  // namespace graphd::server
