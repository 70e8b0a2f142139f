// Content fingerprints of what clients send as graphs (core/fingerprint.h): equal
// GraphDefs (the same nodes, inputs, devices, attributes and library, in the same
// order) add the same bytes, so the function cache can share what they compile to.
#ifndef GRAPHD_COMPILER_IMPORT_GRAPHDEF_FINGERPRINT_H_
#define GRAPHD_COMPILER_IMPORT_GRAPHDEF_FINGERPRINT_H_

#include "core/fingerprint.h"
#include "core/graph/node_def.h"

namespace graphd::compiler {

void AddGraphDef(Fingerprinter& f, const GraphDef& def);
void AddAttrValue(Fingerprinter& f, const AttrValue& value);
// A host tensor by its bytes; a device tensor by its buffer's identity (never equal
// to another's, so nothing keyed on it is shared).
void AddTensor(Fingerprinter& f, const Tensor& t);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_IMPORT_GRAPHDEF_FINGERPRINT_H_
