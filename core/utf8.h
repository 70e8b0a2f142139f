// UTF-8 well-formedness. Protocol buffers' proto3 `string` fields must hold UTF-8 (a
// client fails to parse a message where one does not), so text that reaches graphd's
// replies from bytes a client sent (string tensors quoted in an error, names from a
// proto2 ONNX model) is checked or repaired on the way.
#ifndef GRAPHD_CORE_UTF8_H_
#define GRAPHD_CORE_UTF8_H_

#include <string>

#include "absl/strings/string_view.h"

namespace graphd {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool IsValidUtf8(absl::string_view s);

// `s` with every byte that does not start a well-formed character replaced by U+FFFD
// (as Python's errors="replace" does per byte); `s` itself when it is valid.
std::string ToValidUtf8(absl::string_view s);

}  // namespace graphd

#endif  // GRAPHD_CORE_UTF8_H_
