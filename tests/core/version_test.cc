// The library's version: one definition (include/hhlo/core/version.h) that CMake, the linked
// library and the headers agree on.
#include "hhlo/core/version.h"

#include <gtest/gtest.h>

#include <string>

namespace hhlo {
namespace {

TEST(Version, TheLinkedLibraryIsTheHeadersVersionAndTheStringIsItsParts) {
  EXPECT_STREQ(version(), HHLO_VERSION_STRING);
  EXPECT_EQ(std::string(HHLO_VERSION_STRING), std::to_string(HHLO_VERSION_MAJOR) + "." +
                                                  std::to_string(HHLO_VERSION_MINOR) + "." +
                                                  std::to_string(HHLO_VERSION_PATCH));
}

}  // namespace
}  // namespace hhlo
