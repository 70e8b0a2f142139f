// User source text and ranges into it. Ranges travel from tokens to AST nodes to IR
// nodes (DESIGN.md convention 4), so an error found at any stage points at the
// user's line. A SourceFile is immutable and shared (shared_ptr) by everything that
// refers into it.
#ifndef GRAPHD_CORE_SOURCE_H_
#define GRAPHD_CORE_SOURCE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace graphd {

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // 1-based line and column (in bytes) of byte `offset`.
  int LineOf(int offset) const;
  int ColumnOf(int offset) const;
  // The text of 1-based `line`, without its newline.
  absl::string_view Line(int line) const;
  int num_lines() const { return static_cast<int>(line_starts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<int> line_starts_;
};

// A half-open byte range [begin, end) of a file. A default range points nowhere.
struct SourceRange {
  std::shared_ptr<const SourceFile> file;
  int begin = 0;
  int end = 0;

  bool valid() const { return file != nullptr; }
  int line() const { return file ? file->LineOf(begin) : 0; }
  int column() const { return file ? file->ColumnOf(begin) : 0; }
  // The smallest range covering both (same file).
  static SourceRange Cover(const SourceRange& a, const SourceRange& b);
};

// A located message rendered like a Python traceback entry:
//   File "m.py", line 3
//     y = x +
//           ^~
std::string RenderLocation(const SourceRange& range);

}  // namespace graphd

#endif  // GRAPHD_CORE_SOURCE_H_
