#include "hhlo/core/version.h"

namespace hhlo {

const char* version() { return HHLO_VERSION_STRING; }

}  // namespace hhlo
