// Fresh names for the symbols a conversion introduces, never clashing with a name the
// function already uses.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_NAMER_H_
#define GRAPHD_COMPILER_AUTOGRAPH_NAMER_H_

#include <string>

#include "compiler/autograph/analysis.h"

namespace graphd::compiler::autograph {

class Namer {
 public:
  explicit Namer(NameSet used) : used_(std::move(used)) {}
  // `base`, or `base_1`, `base_2`, ... : the first not used yet (then reserved).
  std::string New(const std::string& base) {
    std::string name = base;
    for (int i = 1; used_.contains(name); ++i) name = base + "_" + std::to_string(i);
    used_.insert(name);
    return name;
  }

 private:
  NameSet used_;
};

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_NAMER_H_
