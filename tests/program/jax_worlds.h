// The two sets of jax.export artifacts tests/program/gen_exported.py makes at build time: the
// project's JAX (0.10.2, .venv) and the newest JAX (.venv-jax-new, JAX 0.12.1 on Python 3.12+),
// made only where scripts/setup.sh found a Python 3.12+ for it. HHLO_TEST_BOTH_JAX defines one
// test per set: SUITE.NAME on the project's JAX, SUITEJaxNew.NAME on the newest, which skips,
// saying why, where that set was not made.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

namespace hhlo::test {

inline const std::filesystem::path kJaxDir = std::filesystem::path(HHLO_GENERATED_DIR) / "exported";
inline const std::filesystem::path kJaxNewDir =
    std::filesystem::path(HHLO_GENERATED_DIR) / "exported_jax_new";

/// True when the newest JAX's artifacts were generated (its manifest is there).
inline bool have_jax_new() { return std::filesystem::exists(kJaxNewDir / "manifest.json"); }

}  // namespace hhlo::test

/// Skips the current test when the newest JAX's artifacts were not generated.
#define HHLO_SKIP_WITHOUT_JAX_NEW()                                                               \
  if (!::hhlo::test::have_jax_new())                                                              \
  GTEST_SKIP() << "no artifacts of the newest JAX in " << ::hhlo::test::kJaxNewDir.string()       \
               << ": scripts/setup.sh makes .venv-jax-new (JAX 0.12.1) only where a Python 3.12 " \
                  "or newer exists (JAX 0.11 and later need it); run the set-up, then cmake"

/// Defines SUITE.NAME over kJaxDir and SUITEJaxNew.NAME over kJaxNewDir; the body that follows
/// takes the folder as `const std::filesystem::path& dir`.
#define HHLO_TEST_BOTH_JAX(suite, name)                        \
  void suite##_##name(const std::filesystem::path& dir);       \
  TEST(suite, name) { suite##_##name(::hhlo::test::kJaxDir); } \
  TEST(suite##JaxNew, name) {                                  \
    HHLO_SKIP_WITHOUT_JAX_NEW();                               \
    suite##_##name(::hhlo::test::kJaxNewDir);                  \
  }                                                            \
  void suite##_##name(const std::filesystem::path& dir)
