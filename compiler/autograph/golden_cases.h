// AutoGraph golden cases (golden_cases.cc): source in, converted code out.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_GOLDEN_CASES_H_
#define GRAPHD_COMPILER_AUTOGRAPH_GOLDEN_CASES_H_

#include <string>
#include <vector>

namespace graphd::compiler::autograph {

struct GoldenCase {
  std::string name;
  std::string source;     // one function definition
  std::string converted;  // ToCode of its conversion
};

const std::vector<GoldenCase>& GoldenCases();

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_GOLDEN_CASES_H_
