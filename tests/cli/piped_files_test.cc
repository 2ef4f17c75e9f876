// Files given to `hhlo run` that are pipes (issue 44): a FIFO as the program and as an input,
// `cat x.npy | hhlo run ... -i /dev/stdin`, bash's `<(...)`, each read to its end and run; a stream
// with no end (/dev/zero) stops at the bound, which the message names (kMaxStreamBytes, 1 GiB).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo {
namespace {

using test::run_hhlo;
using test::run_shell;

// y = x + 1 over tensor<4xf32>.
const char* kAddOne =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
    "  %0 = stablehlo.add %x, %c : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";

// x and x + 1, by hand (every value exact in f32).
const std::vector<float> kX = {1.5f, -2.0f, 0.25f, 8.0f};
const std::vector<float> kXPlusOne = {2.5f, -1.0f, 1.25f, 9.0f};

struct Files {
  std::string dir, program, input;
};

Files prepare(const std::string& name) {
  Files f{test::temp_dir(name), "", ""};
  f.program = f.dir + "/p.mlir";
  f.input = f.dir + "/x.npy";
  test::write_text(f.program, kAddOne);
  write_npy(f.input, Array::from<float>({4}, kX));
  return f;
}

std::vector<float> floats(const std::string& npy) { return read_npy(npy).to_vector<float>(); }

TEST(PipedFiles, FifosAsTheProgramAndAsAnInput) {
  // Each FIFO's writer (cat) runs beside hhlo, which waits for it as cat(1) would (a writer left
  // waiting, were hhlo to fail first, is killed).
  Files f = prepare("pipe_fifo");
  test::ProcessResult r =
      run_shell("cd '" + f.dir +
                "' && mkfifo prog in && { cat p.mlir > prog & A=$!; cat x.npy > in & B=$!; "
                "\"$HHLO\" run prog -i in -o out; echo rc=$?; kill $A $B 2>/dev/null; }");
  ASSERT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  EXPECT_EQ(floats(f.dir + "/out/out0.npy"), kXPlusOne);
}

TEST(PipedFiles, AnNpzArchiveThroughAFifo) {
  Files f = prepare("pipe_npz");
  ad::ParamArrays in;
  in.set("arg0", Array::from<float>({4}, kX));
  nn::save_npz(f.dir + "/x.npz", in);
  test::ProcessResult r = run_shell("cd '" + f.dir +
                                    "' && mkfifo in.npz && { cat x.npz > in.npz & A=$!; "
                                    "\"$HHLO\" run p.mlir -i in.npz -o out; echo rc=$?; "
                                    "kill $A 2>/dev/null; }");
  ASSERT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  EXPECT_EQ(floats(f.dir + "/out/out0.npy"), kXPlusOne);
}

TEST(PipedFiles, AnNpzArchiveThroughAPipeIsTakenByItsContent) {
  // `<(cat x.npz)` and /dev/stdin have no .npz extension: the bytes, read once, are a zip.
  Files f = prepare("pipe_npz_subst");
  ad::ParamArrays in;
  in.set("arg0", Array::from<float>({4}, kX));
  nn::save_npz(f.dir + "/x.npz", in);
  test::ProcessResult r = run_shell("cd '" + f.dir +
                                    "' && bash -c '\"$HHLO\" run p.mlir -i <(cat x.npz) -o out' "
                                    "&& cat x.npz | \"$HHLO\" run p.mlir -i /dev/stdin -o out2; "
                                    "echo rc=$?");
  ASSERT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  EXPECT_EQ(floats(f.dir + "/out/out0.npy"), kXPlusOne);
  EXPECT_EQ(floats(f.dir + "/out2/out0.npy"), kXPlusOne);
}

TEST(PipedFiles, StandardInputPipedIn) {
  Files f = prepare("pipe_stdin");
  test::ProcessResult r = run_shell("cat '" + f.input + "' | \"$HHLO\" run '" + f.program +
                                    "' -i /dev/stdin -o '" + f.dir + "/out'; echo rc=$?");
  ASSERT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  EXPECT_EQ(floats(f.dir + "/out/out0.npy"), kXPlusOne);
}

TEST(PipedFiles, BashProcessSubstitutionForTheProgramAndTheInput) {
  Files f = prepare("pipe_subst");
  test::ProcessResult r = run_shell("cd '" + f.dir +
                                    "' && bash -c '\"$HHLO\" run <(cat p.mlir) -i <(cat x.npy) "
                                    "-o out'; echo rc=$?");
  ASSERT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  EXPECT_EQ(floats(f.dir + "/out/out0.npy"), kXPlusOne);
}

TEST(PipedFiles, DevZeroStopsAtTheBoundNamedInTheMessage) {
  Files f = prepare("pipe_zero");
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'/dev/zero' is a stream (a pipe or a device) longer than 1 GiB, the "
                          "most read from one: give a regular file"),
            std::string::npos)
      << r.output;
  r = run_hhlo({"run", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("program '/dev/zero' is a stream (a pipe or a device) longer than 1 GiB"),
            std::string::npos)
      << r.output;
}

TEST(PipedFiles, AKernelLibraryMustBeARegularFileAndNeverWaitsOnAFifo) {
  // dlopen maps a file: a FIFO (no writer ever comes) and /dev/zero are refused before any open.
  Files f = prepare("pipe_library");
  test::ProcessResult r = run_shell("cd '" + f.dir +
                                    "' && mkfifo lib.so && \"$HHLO\" run p.mlir -i x.npy "
                                    "--custom-call-library ./lib.so; echo rc=$?");
  EXPECT_NE(r.output.find("rc=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel library './lib.so' is not a regular file (a pipe, a device or a "
                          "socket): a library is loaded by mapping its file (dlopen), so it must "
                          "be one"),
            std::string::npos)
      << r.output;
  r = run_hhlo({"run", f.program, "-i", f.input, "--custom-call-library", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("kernel library '/dev/zero' is not a regular file"), std::string::npos)
      << r.output;
  r = run_hhlo({"run", f.program, "-i", f.input, "--custom-call-library", f.dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("kernel library '" + f.dir + "' is a directory, not a shared library"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace hhlo
