// AutoGraph: the AST-to-AST conversion that makes Python control flow traceable, as
// TensorFlow's AutoGraph does. For each function (nested ones too), in order:
//  1. return statements inside control flow become `do_return`/`retval_` flags and the
//     statements after them are guarded (`if not do_return:`);
//  2. break and continue become `break_`/`continue_` flags with guards, the flag
//     joining the loop's condition (`while` test, or the `for` loop's extra test);
//  3. `a if c else b`, `and`, `or`, `not`, `assert` and `list.append` become
//     `ag__.if_exp`, `ag__.and_`, `ag__.or_`, `ag__.not_`, `ag__.assert_stmt` and
//     `ag__.list_append` calls, with lambdas for the lazily evaluated parts;
//  4. if/while/for become `ag__.if_stmt`, `ag__.while_stmt` and `ag__.for_stmt` calls on
//     nested functions (branch and loop bodies, loop test, get_state/set_state) whose
//     state is the names the statement modifies that are used afterwards or read
//     before being written in it; such names not certainly bound before get
//     `x = ag__.Undefined('x')`.
// The tracer runs the converted code: each ag__ call dispatches, when it runs, on
// whether its condition or iterable is a tensor. The output prints as readable
// Python (ToCode).
#ifndef GRAPHD_COMPILER_AUTOGRAPH_CONVERTER_H_
#define GRAPHD_COMPILER_AUTOGRAPH_CONVERTER_H_

#include <memory>
#include <string>

#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

// Converts one function and the functions nested in it. The result keeps the name.
std::shared_ptr<const ast::FunctionDef> ConvertFunction(const ast::FunctionDef& def);

// Converts every function of a module (top level, nested, and class methods); other
// module-level statements are left as they are (they run eagerly when loaded).
ast::Module ConvertModule(const ast::Module& module);

// The converted function as Python text, named `tf__<name>` as TensorFlow prints it.
std::string ToCode(const ast::FunctionDef& converted);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_CONVERTER_H_
