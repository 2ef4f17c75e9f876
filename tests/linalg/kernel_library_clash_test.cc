// `hhlo run --custom-call-library` with libraries that clash (issue 22): two libraries exporting
// a handler symbol of one name each run their own kernel, one target listed by two libraries is
// an error naming both, and a name without a slash is a file in the current folder. The fixture
// libraries (tests/linalg/fixtures/kernel_lib_fixtures.cc) add 1, 2 or 3 to an f32 array.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

// y1 = fixture_add_one(x), y2 = fixture_add_two(x).
const char* kBothTargets =
    "module @m {\n  func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) "
    "{\n"
    "    %0 = stablehlo.custom_call @fixture_add_one(%x) {api_version = 4 : i32} : "
    "(tensor<4xf32>) -> tensor<4xf32>\n"
    "    %1 = stablehlo.custom_call @fixture_add_two(%x) {api_version = 4 : i32} : "
    "(tensor<4xf32>) -> tensor<4xf32>\n"
    "    return %0, %1 : tensor<4xf32>, tensor<4xf32>\n  }\n}\n";

const char* kAddOne =
    "module @m {\n  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "    %0 = stablehlo.custom_call @fixture_add_one(%x) {api_version = 4 : i32} : "
    "(tensor<4xf32>) -> tensor<4xf32>\n"
    "    return %0 : tensor<4xf32>\n  }\n}\n";

std::vector<float> output(const std::string& dir, int i) {
  Array a = read_npy(dir + "/out" + std::to_string(i) + ".npy");
  auto v = a.values<float>();
  return {v.begin(), v.end()};
}

struct Prepared {
  std::string dir;
};

Prepared prepare(const std::string& name, const char* program) {
  Prepared p{test::temp_dir(name)};
  test::write_text(p.dir + "/p.mlir", program);
  write_npy(p.dir + "/x.npy", Array::from<float>({4}, {1, 2, 3, 4}));
  return p;
}

TEST(KernelLibraryClash, SameHandlerSymbolInTwoLibrariesEachRunsItsOwnKernel) {
  Prepared p = prepare("clash_symbols", kBothTargets);
  test::ProcessResult r = test::run_hhlo({"run", p.dir + "/p.mlir", "-i", p.dir + "/x.npy", "-o",
                                          p.dir, "--custom-call-library", HHLO_FIXTURE_ADD_ONE_LIB,
                                          "--custom-call-library", HHLO_FIXTURE_ADD_TWO_LIB});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Under RTLD_GLOBAL the second library's table bound to the first's symbol: [2,3,4,5] twice.
  EXPECT_EQ(output(p.dir, 0), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(output(p.dir, 1), (std::vector<float>{3, 4, 5, 6}));
}

// `hhlo bench` takes the loading flags `hhlo run` takes, --custom-call-library among them (one
// declaration, tools/hhlo/load_flags.cc): the kernel runs, and without it the target is named.
TEST(KernelLibraryClash, BenchRegistersTheKernelLibrariesAsRunDoes) {
  Prepared p = prepare("bench_library", kAddOne);
  test::ProcessResult r = test::run_hhlo({"bench", p.dir + "/p.mlir", "-i", p.dir + "/x.npy", "-n",
                                          "3", "--custom-call-library", HHLO_FIXTURE_ADD_ONE_LIB});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = test::run_hhlo({"bench", p.dir + "/p.mlir", "-i", p.dir + "/x.npy", "-n", "3"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("fixture_add_one"), std::string::npos) << r.output;
}

TEST(KernelLibraryClash, OneTargetInTwoLibrariesIsAnErrorNamingBoth) {
  Prepared p = prepare("clash_targets", kAddOne);
  test::ProcessResult r = test::run_hhlo({"run", p.dir + "/p.mlir", "-i", p.dir + "/x.npy",
                                          "--custom-call-library", HHLO_FIXTURE_ADD_ONE_LIB,
                                          "--custom-call-library", HHLO_FIXTURE_ADD_THREE_LIB});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("target 'fixture_add_one' is already registered for platform 'Host' "
                          "by kernel library '" +
                          std::string(HHLO_FIXTURE_ADD_ONE_LIB) + "'; kernel library '" +
                          HHLO_FIXTURE_ADD_THREE_LIB + "' registers it with another handler"),
            std::string::npos)
      << r.output;
}

TEST(KernelLibraryClash, ANameWithoutASlashIsAFileInTheCurrentFolder) {
  Prepared p = prepare("bare_name", kAddOne);
  // libadd.so here adds 1; a libadd.so on LD_LIBRARY_PATH adds 3 and must not be the one loaded.
  fs::copy_file(HHLO_FIXTURE_ADD_ONE_LIB, p.dir + "/libadd.so");
  fs::create_directories(p.dir + "/elsewhere");
  fs::copy_file(HHLO_FIXTURE_ADD_THREE_LIB, p.dir + "/elsewhere/libadd.so");
  test::ProcessResult r = test::run_hhlo(
      {"run", "p.mlir", "-i", "x.npy", "-o", "out", "--custom-call-library", "libadd.so"},
      {.cwd = p.dir, .env = {"LD_LIBRARY_PATH=" + p.dir + "/elsewhere"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(output(p.dir + "/out", 0), (std::vector<float>{2, 3, 4, 5}));
  // A bare name that is not in the current folder is missing, not searched for.
  fs::remove(p.dir + "/libadd.so");
  r = test::run_hhlo({"run", "p.mlir", "-i", "x.npy", "--custom-call-library", "libadd.so"},
                     {.cwd = p.dir, .env = {"LD_LIBRARY_PATH=" + p.dir + "/elsewhere"}});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("kernel library 'libadd.so' does not exist"), std::string::npos)
      << r.output;
}

// Issue 44: an object file (gcc -c output) was "truncated (its program headers lie past the
// end)"; the kernel library is named for what it is.
TEST(KernelLibraryClash, AnObjectFileIsNamedAsOneNotAsTruncated) {
  Prepared p = prepare("object_file", kAddOne);
  test::ProcessResult r = test::run_hhlo({"run", p.dir + "/p.mlir", "-i", p.dir + "/x.npy",
                                          "--custom-call-library", HHLO_FIXTURE_OBJECT_FILE});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot load custom-call kernel library '" +
                          std::string(HHLO_FIXTURE_OBJECT_FILE) +
                          "': it is an ELF relocatable object file (gcc -c output), not a shared "
                          "library: link it into one (g++ -shared -fPIC"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("truncated"), std::string::npos) << r.output;
}

// Issue 44: a path longer than PATH_MAX to an existing library was "does not exist".
TEST(KernelLibraryClash, ALibraryPathLongerThanPathMaxSaysSo) {
  Prepared p = prepare("long_path", kAddOne);
  // 21 nested folders of 200-character names (each within NAME_MAX), made relative to each other
  // (a path past PATH_MAX cannot be made whole), holding a copy of a working library.
  std::string library = p.dir;
  int fd = ::open(p.dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  const std::string name(200, 'd');
  for (int i = 0; i < 21; ++i) {
    ASSERT_EQ(::mkdirat(fd, name.c_str(), 0755), 0) << i;
    int next = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY);
    ::close(fd);
    ASSERT_GE(next, 0) << i;
    fd = next;
    library += "/" + name;
  }
  std::ifstream in(HHLO_FIXTURE_ADD_ONE_LIB, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int out = ::openat(fd, "libadd.so", O_WRONLY | O_CREAT | O_TRUNC, 0755);
  ::close(fd);
  ASSERT_GE(out, 0);
  ASSERT_EQ(::write(out, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(out);
  library += "/libadd.so";
  ASSERT_GT(library.size(), static_cast<size_t>(PATH_MAX));
  test::ProcessResult r = test::run_hhlo(
      {"run", p.dir + "/p.mlir", "-i", p.dir + "/x.npy", "--custom-call-library", library});
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(r.output.size() - 300);
  EXPECT_NE(r.output.find("' cannot be opened: its path is too long (ENAMETOOLONG: " +
                          std::to_string(library.size()) + " bytes; PATH_MAX is 4096 bytes"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("does not exist"), std::string::npos) << r.output;
  // rm walks the tree relative to each folder (std::filesystem::remove_all takes whole paths).
  test::run_shell("rm -rf '" + p.dir + "'");
}

#if defined(__x86_64__)
TEST(KernelLibraryClash, ALibraryForAnotherArchitectureNamesIt) {
  // An ELF header of an AArch64 shared object (e_machine 183), the rest of the file zeros.
  std::string dir = test::temp_dir("aarch64_lib");
  std::string elf(64, '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  elf[4] = 2;                        // ELFCLASS64
  elf[5] = 1;                        // little-endian
  elf[6] = 1;                        // EV_CURRENT
  elf[16] = 3;                       // ET_DYN
  elf[18] = static_cast<char>(183);  // EM_AARCH64
  test::write_text(dir + "/libk.so", elf);
  test::write_text(dir + "/p.mlir", kAddOne);
  write_npy(dir + "/x.npy", Array::from<float>({4}, {1, 2, 3, 4}));
  test::ProcessResult r = test::run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--custom-call-library", dir + "/libk.so"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("it is built for AArch64, and this process runs on x86-64"),
            std::string::npos)
      << r.output;
}
#endif

}  // namespace
}  // namespace hhlo
