// Helpers shared by the frontend's tests.
#ifndef GRAPHD_COMPILER_FRONTEND_TEST_UTIL_H_
#define GRAPHD_COMPILER_FRONTEND_TEST_UTIL_H_

#include <memory>
#include <string>

#include "compiler/frontend/parser.h"
#include "compiler/frontend/printer.h"
#include "core/source.h"
#include "core/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler::testing {

inline std::shared_ptr<const SourceFile> File(std::string text, std::string name = "m.py") {
  return std::make_shared<const SourceFile>(std::move(name), std::move(text));
}

// Parses and prints `src`; on a parse error returns "ERROR: <status>".
inline std::string Reprint(const std::string& src) {
  auto module = ParseModule(File(src));
  if (!module.ok()) return "ERROR: " + module.status().ToString();
  return PrintModule(*module);
}

// What a frontend error should be.
struct ExpectedError {
  absl::StatusCode code;
  std::string python_class;
  std::string message;  // a substring of the message
  int line;
  int column;
};

inline void ExpectError(const Status& status, const ExpectedError& want) {
  ASSERT_FALSE(status.ok()) << "expected an error containing \"" << want.message << "\"";
  EXPECT_EQ(status.code(), want.code) << status;
  EXPECT_EQ(errors::PythonClassOf(status).value_or("<none>"), want.python_class) << status;
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr(want.message));
  auto locations = errors::LocationsOf(status);
  ASSERT_EQ(locations.size(), 1u) << status;
  EXPECT_EQ(locations[0].file, "m.py");
  EXPECT_EQ(locations[0].line, want.line) << status;
  EXPECT_EQ(locations[0].column, want.column) << status;
}

}  // namespace graphd::compiler::testing

#endif  // GRAPHD_COMPILER_FRONTEND_TEST_UTIL_H_
