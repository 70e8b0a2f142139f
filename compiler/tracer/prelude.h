// Library code written in graphd's Python subset (keras_prelude.cc): run in every
// module, before its own code, in a namespace of its own; it fills in parts of the
// `tf` namespace (tf.keras.optimizers, tf.clip_by_global_norm).
#ifndef GRAPHD_COMPILER_TRACER_PRELUDE_H_
#define GRAPHD_COMPILER_TRACER_PRELUDE_H_

namespace graphd::compiler::tracer {

// The prelude's source text (file name "<graphd prelude>").
const char* PreludeSource();

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_PRELUDE_H_
