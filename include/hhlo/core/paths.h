// Where an installed (or built) HHLO-C++ finds its data files: the `share/hhlo` folders that hold
// the PJRT plugins (`plugins/<platform>/`) and the demo's digits data (`data/`).
#pragma once

#include <string>
#include <vector>

/// Defined (weak) by the source file that `find_package(hhlo)` adds to every target linking
/// `hhlo::hhlo` (hhloConfig.cmake): the absolute `P/share/hhlo` of the package found. Absent in
/// the build tree and for users of pkg-config, where share_dirs() relies on the module's location.
extern "C" const char* hhlo_installed_share_dir() __attribute__((weak));

namespace hhlo {

/// Candidate `share/hhlo` folders in search order, without duplicates (existing or not):
/// 1. hhlo_installed_share_dir() when the program was configured with find_package(hhlo);
/// 2. `D/share/hhlo` for D the folder of the module holding the library code (libhhlo.so, or the
///    executable it is linked into) and up to three of its parents: `P/bin/hhlo` and
///    `P/lib/libhhlo.so` find `P/share/hhlo`, a program in the build tree finds the build tree's
///    `share/hhlo` (links to the set-up folder, made when CMake configures);
/// 3. the same for the running executable (/proc/self/exe) when it differs;
/// 4. `CMAKE_INSTALL_PREFIX/share/hhlo` of the configured build (a plain `cmake --install`).
/// Never throws (a folder whose location cannot be read is left out).
std::vector<std::string> share_dirs();

/// The first `DIR/relative` among share_dirs() that exists, or "" when none does. `looked` (if
/// not null) receives every path tried, in order, for error messages.
std::string find_share_file(const std::string& relative,
                            std::vector<std::string>* looked = nullptr);

}  // namespace hhlo
