// What a hostile but realistic user does to `hhlo run`'s inputs and outputs (issue 22): a full
// disk (a private 64 KiB tmpfs under `unshare -m`), a closed stdout, an empty -o, inputs that are
// folders or devices, a folder in a compile-cache entry's place. Nothing is lost and nothing is
// presented as complete that is not.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "hhlo/nn/checkpoint.h"
#include "hhlo/nn/models.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using test::run_hhlo;
using test::run_shell;

// y = x + x over tensor<4xf32>.
const char* kDouble =
    "module @m {\n  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "    %0 = stablehlo.add %x, %x : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n";

std::vector<float> floats(const Array& a) {
  auto v = a.values<float>();
  return {v.begin(), v.end()};
}

struct Files {
  std::string dir, program, input;
};

Files prepare(const std::string& name, const std::string& text = kDouble) {
  Files f{test::temp_dir(name), "", ""};
  f.program = f.dir + "/p.mlir";
  f.input = f.dir + "/x.npy";
  test::write_text(f.program, text);
  write_npy(f.input, Array::from<float>({4}, {1, 2, 3, 4}));
  return f;
}

/// Whether this process may mount a private tmpfs (root, as in CI; `unshare -m` and `mount`).
bool can_mount_tmpfs() {
  return run_shell("unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs /mnt'").exit_code == 0;
}

/// Runs `command` (with $D the mount point of a full 64 KiB tmpfs holding D/out0.npy and
/// D/r.npz = "previous"), then prints "rc=N", each file's contents and the folder's listing.
test::ProcessResult on_full_disk(const std::string& mount, const std::string& command) {
  std::string script =
      "export D='" + mount +
      "'; unshare -m sh -c '"
      "mount -t tmpfs -o size=64k tmpfs \"$D\" || exit 99; "
      "printf previous > \"$D/out0.npy\"; printf previous > \"$D/r.npz\"; "
      "head -c 1000000 /dev/zero > \"$D/fill\" 2>/dev/null; " +
      command +
      "; echo \"rc=$?\"; echo \"out0=$(cat \"$D/out0.npy\")\"; echo \"npz=$(cat \"$D/r.npz\")\"; "
      "ls -A \"$D\"'";
  return run_shell(script);
}

TEST(HostileOutput, FullDiskIsAnErrorNamingTheFileAndKeepsThePreviousOutput) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "needs root for a private tmpfs (CI runs as root)";
  Files f = prepare("full_disk");
  fs::create_directories(f.dir + "/mnt");
  test::ProcessResult r =
      on_full_disk(f.dir + "/mnt", "\"$HHLO\" run " + f.program + " -i " + f.input + " -o \"$D\"");
  EXPECT_NE(r.output.find("rc=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(".npy file '" + f.dir +
                          "/mnt/out0.npy' cannot be written: No space "
                          "left on device (the previous file, if any, is kept)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("wrote 1 output"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("out0=previous"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(".tmp-"), std::string::npos) << "a temporary file was left behind\n"
                                                       << r.output;
}

TEST(HostileOutput, FullDiskUnderAnNpzOutputKeepsThePreviousArchive) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "needs root for a private tmpfs (CI runs as root)";
  Files f = prepare("full_disk_npz");
  fs::create_directories(f.dir + "/mnt");
  test::ProcessResult r = on_full_disk(
      f.dir + "/mnt", "\"$HHLO\" run " + f.program + " -i " + f.input + " -o \"$D/r.npz\"");
  EXPECT_NE(r.output.find("rc=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("npz=previous"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(".tmp-"), std::string::npos) << r.output;
}

TEST(HostileOutput, FullDiskUnderDemoSaveIsAnError) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "needs root for a private tmpfs (CI runs as root)";
  Files f = prepare("full_disk_demo");
  fs::create_directories(f.dir + "/mnt");
  test::ProcessResult r =
      on_full_disk(f.dir + "/mnt", "\"$HHLO\" demo --epochs 1 --save \"$D/r.npz\"");
  EXPECT_NE(r.output.find("rc=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("npz=previous"), std::string::npos) << r.output;
}

TEST(HostileOutput, AClosedStdoutNeverStopsTheOutputFiles) {
  // 300 results, stdout closed by `head -1` after the first line.
  std::string text = "module @m {\n  func.func public @main(%x: tensor<f32>) -> (";
  for (int i = 0; i < 300; ++i) text += std::string(i ? ", " : "") + "tensor<f32>";
  text += ") {\n";
  for (int i = 0; i < 300; ++i)
    text += "    %" + std::to_string(i) + " = stablehlo.add %x, %x : tensor<f32>\n";
  text += "    return ";
  for (int i = 0; i < 300; ++i) text += std::string(i ? ", " : "") + "%" + std::to_string(i);
  text += " : ";
  for (int i = 0; i < 300; ++i) text += std::string(i ? ", " : "") + "tensor<f32>";
  text += "\n  }\n}\n";
  Files f = prepare("closed_pipe", text);
  write_npy(f.input, Array::from<float>({}, {1.5f}));
  test::ProcessResult r = run_shell("\"$HHLO\" run " + f.program + " -i " + f.input + " -o " +
                                    f.dir + "/out | head -1; ls " + f.dir + "/out | wc -l");
  EXPECT_NE(r.output.find("\n300\n"), std::string::npos) << r.output;
  EXPECT_FLOAT_EQ(read_npy(f.dir + "/out/out299.npy").values<float>()[0], 3.0f);
}

// Issue 44: `hhlo run` without -o, whose printed values are the only result, exited 0 saying
// nothing when they could not be written (a full disk, a closed stdout).
TEST(HostileOutput, ResultsThatCannotBeWrittenToAFullStdoutAreAnError) {
  Files f = prepare("dev_full");
  for (std::string repeat : {"", " --repeat 3"}) {
    test::ProcessResult r = run_shell("\"$HHLO\" run " + f.program + " -i " + f.input + repeat +
                                      " > /dev/full; echo rc=$?");
    EXPECT_EQ(r.output,
              "hhlo: error: cannot write the results to standard output: No space left on "
              "device\nrc=1\n")
        << repeat;
  }
}

TEST(HostileOutput, ResultsThatCannotBeWrittenToAClosedStdoutAreAnError) {
  Files f = prepare("closed_stdout");
  test::ProcessResult r =
      run_shell("\"$HHLO\" run " + f.program + " -i " + f.input + " >&-; echo rc=$?");
  EXPECT_EQ(r.output,
            "hhlo: error: cannot write the results to standard output: Bad file descriptor "
            "(standard output is closed)\nrc=1\n");
  // With -o, the files are written whole, and none of them takes the closed stdout's number
  // (what is printed would land in it).
  r = run_shell("\"$HHLO\" run " + f.program + " -i " + f.input + " -o " + f.dir +
                "/out >&-; echo rc=$?");
  EXPECT_NE(r.output.find("rc=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("standard output is closed"), std::string::npos) << r.output;
  EXPECT_EQ(floats(read_npy(f.dir + "/out/out0.npy")), (std::vector<float>{2, 4, 6, 8}));
  // Delivered results are still exit 0.
  r = run_shell("\"$HHLO\" run " + f.program + " -i " + f.input + " > " + f.dir +
                "/printed; echo rc=$?");
  EXPECT_EQ(r.output, "rc=0\n");
}

TEST(HostileOutput, AnEmptyOutputDirIsRefused) {
  Files f = prepare("empty_o");
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.input, "-o", ""});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--output-dir is empty"), std::string::npos) << r.output;
}

TEST(HostileInput, AnInputOrAProgramThatIsAFolderIsNamedAtOnce) {
  Files f = prepare("input_kinds");
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'" + f.dir + "' is a directory, not a file"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  r = run_hhlo({"run", f.dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("program '" + f.dir + "' is a directory and not a torch_xla bundle"),
            std::string::npos)
      << r.output;
  // A device or a pipe is read up to a bound: PipedFiles.* (tests/cli/piped_files_test.cc).
}

TEST(HostileInput, ATextFileGivenAsNpzSaysItIsNotAZipArchive) {
  Files f = prepare("text_npz");
  test::write_text(f.dir + "/in.npz", "this is text\n");
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.dir + "/in.npz"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'" + f.dir + "/in.npz' is not a zip archive"), std::string::npos)
      << r.output;
}

TEST(HostileInput, DemoLoadOfAFloat64ParameterNamesTheParameterAndTheFile) {
  // NumPy's default dtype is float64: a checkpoint made there does not fit the f32 model.
  std::string dir = test::temp_dir("demo_f64");
  ad::ParamArrays params = nn::digits_model("mlp", 0).init;
  std::string first = params.names().at(0);
  const Array& a = params.at(first);
  Array wide(DType::f64, a.dims());
  for (int64_t i = 0; i < a.num_elements(); ++i)
    static_cast<double*>(wide.data())[i] = a.element_as_double(i);
  params.set(first, wide);
  nn::save_npz(dir + "/ckpt.npz", params);
  test::ProcessResult r = run_hhlo({"demo", "--eval-only", "--load", dir + "/ckpt.npz"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--load '" + dir + "/ckpt.npz': parameter '" + first + "' is tensor<" +
                          std::to_string(a.dims()[0]) + "x"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("xf64>, the model's is tensor<"), std::string::npos) << r.output;
}

TEST(HostileCache, AFolderInAnEntrysPlaceIsRecompiledNotAnInternalError) {
  Files f = prepare("cache_dir_entry");
  std::string cache = f.dir + "/cache";
  test::ProcessOptions env{.env = {"HHLO_COMPILE_CACHE=" + cache}};
  ASSERT_EQ(run_hhlo({"run", f.program, "-i", f.input}, env).exit_code, 0);
  int replaced = 0;
  for (const auto& e : fs::directory_iterator(cache))
    if (e.path().extension() == ".hxc" || e.path().extension() == ".hrec") {
      fs::remove(e.path());
      fs::create_directories(e.path() / "inside");
      ++replaced;
    }
  ASSERT_EQ(replaced, 2);  // the executable and the record of the program's bytes
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.input, "-o", f.dir + "/out"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(floats(read_npy(f.dir + "/out/out0.npy")), (std::vector<float>{2, 4, 6, 8}));
}

TEST(HostileCache, AnInvalidSizeBoundIsOneWarningLineAndTheDefault) {
  Files f = prepare("cache_bound");
  for (std::string bound : {"1.5", "-5", "17592186044416"}) {
    test::ProcessResult r = run_hhlo(
        {"run", f.program, "-i", f.input},
        {.env = {"HHLO_COMPILE_CACHE=" + f.dir + "/cache", "HHLO_COMPILE_CACHE_MAX_MB=" + bound}});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::string warning = "hhlo: warning: HHLO_COMPILE_CACHE_MAX_MB='" + bound +
                          "' is not a whole number of MiB from 0 to 17592186044415; using the "
                          "default, 1024 MiB\n";
    std::size_t at = r.output.find(warning);
    EXPECT_NE(at, std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(warning, at + 1), std::string::npos) << "more than once\n" << r.output;
  }
}

}  // namespace
}  // namespace hhlo
