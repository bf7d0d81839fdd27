// graphDump (NNAPI's debugging utility): a model as a Graphviz digraph. Operations are boxes: index and
// type, then each output as "→ #index TYPE [dims]", each constant tensor input by type and shape, and the
// scalar parameters (and omitted optional inputs, "(none)") by position and value, several to a line.
// A value passed between operations is the edge from its producer to each consumer (labelled with the
// input position where a box has several); graph inputs and outputs are nodes of their own (bold ellipses)
// and so are subgraph references. Referenced subgraphs (IF/WHILE bodies) are clusters of their own.
// It does not validate: indices out of range are drawn as "?" nodes so a broken model can be looked at.
#pragma once

#include <string>

#include "npu/models/model.h"

namespace npu::hal {

std::string graph_dump(const models::Model& model);

}  // namespace npu::hal
