// Fuzz entry points (docs/reliability.md). Each takes arbitrary bytes and returns 0; bad input
// must end in the hhlo::Error the API documents, never in a crash, an abort, another exception
// type, a leak or undefined behaviour. A violated property calls fuzz_fail, which aborts (libFuzzer
// and the replay test both report it with the input).
//
// The same entry points are built twice: with clang + libFuzzer + ASan/UBSan under HHLO_FUZZ
// (`make fuzz`, one executable per target, tests/fuzz/libfuzzer_main.cc), and with the normal
// compiler into hhlo_fuzz_tests (tests/fuzz/replay_test.cc), which replays each over its seed
// corpus, its saved crash inputs (tests/fuzz/regressions/<target>/) and a fixed set of mutants on
// every `make test`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hhlo::fuzz {

/// The `.npy` reader (hhlo/core/array.h parse_npy) on the bytes as a file's contents.
int npy(const uint8_t* data, size_t size);
/// The `.npz` reader (hhlo/nn/checkpoint.h parse_npz) on the bytes as an archive's contents.
int npz(const uint8_t* data, size_t size);
/// The StableHLO text parser (hhlo/ir/parser.h), with and without the verifier; a module that
/// parses is printed and must parse back.
int parser(const uint8_t* data, size_t size);
/// The MLIR bytecode reader (hhlo/ir/bytecode.h), with and without the verifier; a module that
/// is read is printed and must parse as text.
int bytecode(const uint8_t* data, size_t size);
/// The builders' shape rules (hhlo/ir/ops.h): the bytes choose an op, operand types and
/// attribute values; the builder returns values or throws ShapeError, and a module it built is
/// accepted by the verifier (hhlo/ir/verifier.h) and by the parser after printing.
int shape_rules(const uint8_t* data, size_t size);
/// The CLI's input handling of `hhlo run` (tools/hhlo/run_input.h): argument parsing, program
/// file, entry selection, --xla-option values and .npy inputs. Input format: NUL-separated
/// argument tokens, then "\0\0" and the program file's bytes, then for each further "\0\0" the
/// bytes of one input file; the tokens PROGRAM and INPUT<k> name those files.
int cli(const uint8_t* data, size_t size);
/// The jax.export artifact reader (hhlo/program/exported.h read_exported, is_exported_artifact).
int exported(const uint8_t* data, size_t size);
/// The reader of `hhlo run -i NAME=FILE` specs (tools/hhlo/run_npz.h split_named_input,
/// match_named_inputs). Input format: NUL-separated tokens, the argument names, an empty token,
/// then the specs.
int input_spec(const uint8_t* data, size_t size);
/// The Open Inference Protocol's request decoder (hhlo/serve/json_codec.h
/// decode_infer_request). Input format: a byte whose low bit says whether the body carries
/// binary tensor data, two bytes (little-endian) of its JSON part's length, then the body.
int infer_request(const uint8_t* data, size_t size);
/// The safetensors reader (hhlo/core/safetensors.h parse_safetensors) on the bytes as a file's
/// contents; what it reads must write back and read again to the same tensors.
int safetensors(const uint8_t* data, size_t size);

/// One named entry point.
struct Target {
  const char* name;
  int (*run)(const uint8_t*, size_t);
};
/// All entry points, in a fixed order.
inline constexpr Target kTargets[] = {{"npy", npy},
                                      {"npz", npz},
                                      {"parser", parser},
                                      {"shape_rules", shape_rules},
                                      {"cli", cli},
                                      {"bytecode", bytecode},
                                      {"exported", exported},
                                      {"input_spec", input_spec},
                                      {"infer_request", infer_request},
                                      {"safetensors", safetensors}};

/// Reports a violated property (`what`) and aborts. When an input was set with
/// set_failure_input, it is first written to `fuzz-failure-<target>` in the working folder (the
/// replay test does this; libFuzzer saves its own crash-<sha1> files).
[[noreturn]] void fuzz_fail(std::string_view target, std::string_view what);
/// The input being run, for fuzz_fail to save (nullptr: none). Not thread-safe: the replay test
/// runs one input at a time.
void set_failure_input(const std::string* bytes);

/// Reads bounded values from the fuzz input, left to right; past the end every read returns 0.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  /// Next byte (0 past the end).
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  /// A value in [0, n) (n > 0).
  size_t below(size_t n) { return n <= 256 ? byte() % n : (size_t{byte()} << 8 | byte()) % n; }
  /// A value in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<size_t>(hi - lo + 1)));
  }
  /// A boolean.
  bool flag() { return byte() & 1; }
  /// True once every byte has been read.
  bool done() const { return at_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_, at_ = 0;
};

}  // namespace hhlo::fuzz
