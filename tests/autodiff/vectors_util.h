// JAX vector files of the autodiff tests: lines `<case>/<name>|<dtype>|<dims>|<values>` (dtype
// f32, f64, c64 or c128; complex values as re im pairs), written by the gen_*_vectors.py scripts.
#pragma once

#include <map>
#include <string>

#include "hhlo/core/array.h"

namespace hhlo::test {

/// Every array of tests/autodiff/data/`file`, by name. Throws hhlo::IoError naming the file and
/// the script that writes it (`generator`) when it cannot be opened.
std::map<std::string, Array> read_vectors(const std::string& file, const std::string& generator);

/// The same for a vector file the test build generates (HHLO_GENERATED_DIR/`file`, written by
/// tests/autodiff/`generator` through tests/CMakeLists.txt; never committed). Values may be nan,
/// inf, -inf and -0.0 (read with strtod).
std::map<std::string, Array> read_generated_vectors(const std::string& file,
                                                    const std::string& generator);

/// The array `name` of `vectors` (read_vectors / read_generated_vectors). Throws hhlo::Error
/// "no JAX vector NAME" when there is none.
const Array& vector_named(const std::map<std::string, Array>& vectors, const std::string& name);

}  // namespace hhlo::test
