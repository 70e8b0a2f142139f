// The Python builtins a tf.function body uses at trace time, and AutoGraph's runtime
// module `ag__` (Python-value semantics; tensor conditions go to the tracer through
// the hooks it installs on the ag__ namespace).
#ifndef GRAPHD_COMPILER_TRACER_BUILTINS_H_
#define GRAPHD_COMPILER_TRACER_BUILTINS_H_

#include <memory>

#include "compiler/tracer/objects.h"

namespace graphd::compiler::tracer {

// print len range enumerate zip min max abs int float bool str repr isinstance list
// tuple dict sorted reversed sum round hasattr getattr setattr any all map filter iter next, True/False/None are
// literals. No open/eval/exec/__import__: those names are simply not defined.
std::shared_ptr<Namespace> MakeBuiltins();
// any all map filter iter next (MakeBuiltins adds them).
void AddIterationBuiltins(Namespace& builtins);

// if_stmt while_stmt for_stmt if_exp and_ or_ not_ assert_stmt list_append Undefined
// UndefinedReturnValue retval.
std::shared_ptr<Namespace> MakeAutographRuntime();

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_BUILTINS_H_
