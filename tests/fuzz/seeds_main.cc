// `hhlo_fuzz_seeds DIR`: writes the seed corpus of every fuzz target (seeds.h) into DIR/<target>/
// for libFuzzer (`make fuzz`). Existing files are kept: a corpus grows across runs.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "seeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hhlo_fuzz_seeds DIR\n");
    return 2;
  }
  // By name: this tool links no entry point.
  for (const char* name : {"npy", "npz", "parser", "shape_rules", "cli", "bytecode", "exported",
                           "input_spec", "infer_request", "safetensors"}) {
    std::filesystem::path dir = std::filesystem::path(argv[1]) / name;
    std::filesystem::create_directories(dir);
    size_t n = 0;
    for (const hhlo::fuzz::Seed& s : hhlo::fuzz::seeds(name)) {
      std::ofstream(dir / ("seed-" + std::to_string(n++)), std::ios::binary) << s.bytes;
    }
    std::printf("%s: %zu seeds in %s\n", name, n, dir.c_str());
  }
  return 0;
}
