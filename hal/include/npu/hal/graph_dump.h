// graphDump (NNAPI's debugging utility): a model as a Graphviz digraph. Operands that carry data
// between operations are ellipses (graph inputs and outputs bold) labelled with index, type and
// dimensions, one line each; operations are boxes labelled with index and type, and list their
// constant inputs inside the box (scalars by value, weight tensors by type and shape, omitted optional
// inputs as "(none)"); edges follow data flow, labelled with the input/output position.
// Referenced subgraphs (IF/WHILE bodies) are clusters of their own.
// It does not validate: indices out of range are drawn as "?" nodes so a broken model can be looked at.
#pragma once

#include <string>

#include "npu/models/model.h"

namespace npu::hal {

std::string graph_dump(const models::Model& model);

}  // namespace npu::hal
