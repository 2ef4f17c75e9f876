// Reader of the committed JAX vector files (tests/nn/data/*.txt, written by gen_*_vectors.py):
// one tensor per line, `<name>|<dims>|<values>`; names containing "/y" or "/ids" are i32, the
// rest f32.
#pragma once

#include <map>
#include <string>

#include "hhlo/core/array.h"

namespace hhlo::test {

using Vectors = std::map<std::string, Array>;
/// Reads tests/nn/data/<file> (cached per file). Throws hhlo::IoError when it is missing.
const Vectors& jax_vectors(const std::string& file);
/// EXPECTs |got - want| <= tol * (1 + max|want|) elementwise (f32 arrays), labelled `what`.
void expect_close(const Array& got, const Array& want, double tol, const std::string& what);

}  // namespace hhlo::test
