// The version of HHLO-C++: semantic versioning (https://semver.org), every change of a public
// signature or behaviour recorded in CHANGELOG.md. This header is the one place the version is
// written: CMake reads it for `project(hhlo VERSION ...)`, so `find_package(hhlo 0.1)` (its
// `hhlo_VERSION`), `hhlo.pc`, the shared library's SOVERSION, the compile cache's keys and
// `hhlo --version` all say what it says. Before 1.0.0 a minor version may break the API
// (find_package accepts the same major.minor only).
#pragma once

#define HHLO_VERSION_MAJOR 0
#define HHLO_VERSION_MINOR 1
#define HHLO_VERSION_PATCH 0
/// "MAJOR.MINOR.PATCH" of the headers being compiled, e.g. "0.1.0".
#define HHLO_VERSION_STRING                   \
  HHLO_DETAIL_VERSION_STR(HHLO_VERSION_MAJOR) \
  "." HHLO_DETAIL_VERSION_STR(HHLO_VERSION_MINOR) "." HHLO_DETAIL_VERSION_STR(HHLO_VERSION_PATCH)
#define HHLO_DETAIL_VERSION_STR(x) HHLO_DETAIL_VERSION_STR2(x)
#define HHLO_DETAIL_VERSION_STR2(x) #x

namespace hhlo {

/// The version of the library linked into the program, "MAJOR.MINOR.PATCH" (HHLO_VERSION_STRING
/// of the headers it was built with). Differs from HHLO_VERSION_STRING only when a program is
/// compiled against one installation's headers and linked with another's library.
const char* version();

}  // namespace hhlo
