// graphDump (NNAPI's debugging utility): a model as a Graphviz digraph. Operands are ellipses (graph
// inputs and outputs bold, constants grey, omitted optional inputs dashed) labelled with index, type
// and dimensions; operations are boxes labelled with index and type; edges follow data flow, labelled
// with the input/output position. Referenced subgraphs (IF/WHILE bodies) are clusters of their own.
// It does not validate: indices out of range are drawn as "?" nodes so a broken model can be looked at.
#pragma once

#include <string>

#include "npu/models/model.h"

namespace npu::hal {

std::string graph_dump(const models::Model& model);

}  // namespace npu::hal
