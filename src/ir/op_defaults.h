// Defaults our IR keeps explicit where the StableHLO text may omit them (internal): shared by the
// text parser and the bytecode reader, so both give the same Module.
#pragma once

#include "hhlo/ir/module.h"

namespace hhlo {

/// Adds the attributes `st` lacks that our IR keeps explicit: reduce_window / select_and_scatter
/// window strides and dilations of 1, convolution strides and dilations 1 and group counts 1,
/// sort dimension -1.
void fill_op_defaults(OpState& st);

}  // namespace hhlo
