// The line each opt-in rewrite of the program stage prints (`hhlo run`, `hhlo bench`): what
// --unroll-loops and the --onednn-* flags changed in the program, and the first thing each kept.
#pragma once

#include <string>
#include <vector>

#include "hhlo/program/program.h"

namespace hhlo::cli {

/// One line per rewrite `prepare` asked for, from the counts of `program`:
/// "loops: N unrolled by up to K, M kept" with PrepareOptions::unroll_loops (K), and
/// "oneDNN WHAT: N rewritten, M kept" with PrepareOptions::onednn (WHAT: OneDnnOps::describe,
/// e.g. "convolutions (1 thread)"); each followed by " (the first: REASON)" when something was
/// kept. Empty when neither was asked for.
std::vector<std::string> rewrite_lines(const PreparedFacts& program, const PrepareOptions& prepare);

/// Prints rewrite_lines(program, prepare) to stderr, one per line.
void print_rewrites(const PreparedFacts& program, const PrepareOptions& prepare);

}  // namespace hhlo::cli
