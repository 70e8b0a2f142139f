#include "server/text_proto.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "absl/strings/str_cat.h"

namespace graphd::server {
namespace {

// Keeps the parser's first error with its position.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

}  // namespace

Status ParseTextProto(absl::string_view text, const std::string& path, google::protobuf::Message* out) {
  google::protobuf::TextFormat::Parser parser;
  FirstError error;
  parser.RecordErrorsTo(&error);
  if (!parser.ParseFromString(std::string(text), out)) {
    return errors::InvalidArgument(absl::StrCat(path, ":", error.error()));
  }
  return absl::OkStatus();
}

}  // namespace graphd::server
