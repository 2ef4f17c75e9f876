// Rules registered for ops added to the IR after the core set (gather, sort, ...), guarded so
// each family can be added here as the builders land.
#include "rules.h"

namespace hhlo::ad::detail {

void register_extra_rules(Registry&) {}

}  // namespace hhlo::ad::detail
