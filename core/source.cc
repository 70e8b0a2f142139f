#include "core/source.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace graphd {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (int i = 0; i < static_cast<int>(text_.size()); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

int SourceFile::LineOf(int offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<int>(it - line_starts_.begin());
}

int SourceFile::ColumnOf(int offset) const { return offset - line_starts_[LineOf(offset) - 1] + 1; }

absl::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > num_lines()) return {};
  int begin = line_starts_[line - 1];
  int end = line < num_lines() ? line_starts_[line] - 1 : static_cast<int>(text_.size());
  if (end > begin && text_[end - 1] == '\r') --end;
  return absl::string_view(text_).substr(begin, end - begin);
}

SourceRange SourceRange::Cover(const SourceRange& a, const SourceRange& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  return SourceRange{a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

std::string RenderLocation(const SourceRange& range) {
  if (!range.valid()) return "";
  int line = range.line();
  absl::string_view text = range.file->Line(line);
  int col = range.column() - 1;
  // Underline to the end of the range or of the line, whichever comes first.
  int width = std::max(1, std::min(range.end - range.begin, static_cast<int>(text.size()) - col));
  std::string marker(col, ' ');
  marker += '^';
  if (width > 1) marker += std::string(width - 1, '~');
  return absl::StrCat("  File \"", range.file->name(), "\", line ", line, "\n    ", text, "\n    ",
                      marker, "\n");
}

}  // namespace graphd
