// Located, Python-classed errors raised by the frontend (lexer and parser). Each helper
// builds the status, attaches the source location (errors::WithLocation) and names the
// Python exception class the client should raise (errors::WithPythonClass).
#ifndef GRAPHD_COMPILER_FRONTEND_DIAGNOSTICS_H_
#define GRAPHD_COMPILER_FRONTEND_DIAGNOSTICS_H_

#include "absl/strings/string_view.h"
#include "core/source.h"
#include "core/status.h"

namespace graphd::compiler {

// A grammar error: InvalidArgument, class SyntaxError.
Status SyntaxError(const SourceRange& at, absl::string_view message);
// Bad indentation: InvalidArgument, class IndentationError.
Status IndentationError(const SourceRange& at, absl::string_view message);
// Inconsistent tabs and spaces: InvalidArgument, class TabError (an IndentationError).
Status TabError(const SourceRange& at, absl::string_view message);
// Valid Python that graphd does not support: Unimplemented, class NotImplementedError.
// `message` names the construct, e.g. "'try' statements are not supported by graphd".
Status NotSupported(const SourceRange& at, absl::string_view message);
// Nesting beyond the frontend's limits: ResourceExhausted, class RecursionError.
Status TooDeep(const SourceRange& at, absl::string_view message);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_FRONTEND_DIAGNOSTICS_H_
