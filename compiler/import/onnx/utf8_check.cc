#include "compiler/import/onnx/utf8_check.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/utf8.h"
#include "google/protobuf/descriptor.h"

namespace graphd::compiler::onnx_import {

Status CheckUtf8Strings(const google::protobuf::Message& root) {
  using google::protobuf::FieldDescriptor;
  std::vector<std::pair<const google::protobuf::Message*, std::string>> pending = {{&root, ""}};
  std::vector<const FieldDescriptor*> fields;
  while (!pending.empty()) {
    auto [message, path] = std::move(pending.back());
    pending.pop_back();
    const google::protobuf::Reflection* r = message->GetReflection();
    fields.clear();
    r->ListFields(*message, &fields);
    for (const FieldDescriptor* f : fields) {
      const std::string name = path.empty() ? f->name() : absl::StrCat(path, ".", f->name());
      auto where = [&](int i) { return f->is_repeated() ? absl::StrCat(name, "[", i, "]") : name; };
      const int n = f->is_repeated() ? r->FieldSize(*message, f) : 1;
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        for (int i = 0; i < n; ++i) {
          std::string scratch;
          const std::string& s = f->is_repeated() ? r->GetRepeatedStringReference(*message, f, i, &scratch)
                                                  : r->GetStringReference(*message, f, &scratch);
          if (!IsValidUtf8(s)) {
            return errors::InvalidArgument(
                absl::StrCat("the ONNX model's ", where(i), " is not valid UTF-8 (ONNX strings are UTF-8)"));
          }
        }
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        for (int i = 0; i < n; ++i) {
          pending.emplace_back(f->is_repeated() ? &r->GetRepeatedMessage(*message, f, i) : &r->GetMessage(*message, f),
                               where(i));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace graphd::compiler::onnx_import
