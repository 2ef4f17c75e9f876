// .npz archives written by NumPy: members go through the .npy reader (parse_npy), so big-endian
// and Fortran-order members load as their logical arrays (tests/core/gen_npy_files.py made it).
#include "hhlo/core/npz.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "hhlo/core/error.h"
#include "hhlo/core/safetensors.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo {
namespace {

TEST(NnCheckpoint, NumpyNpzWithBigEndianAndFortranOrderMembers) {
  // np.savez(w = arange(4) as '>f4', m = asfortranarray(arange(6).reshape(2, 3)) as '<i2')
  ad::ParamArrays p = nn::load_npz(std::string(HHLO_GENERATED_DIR) + "/mixed.npz");
  EXPECT_EQ(p.at("w").to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(p.at("m").dims(), (Dims{2, 3}));
  EXPECT_EQ(p.at("m").to_vector<int16_t>(), (std::vector<int16_t>{0, 1, 2, 3, 4, 5}));
}

// Issue 41, item 7: a checkpoint written by safetensors.flax (Flax's flattened keys) loads through
// load_params by its suffix, every tensor equal to the array the generator saved beside it.
TEST(NnCheckpoint, FlaxSafetensorsLoadByTheirFlattenedKeys) {
  const std::string dir = std::string(HHLO_GENERATED_DIR) + "/safetensors/";
  ad::ParamArrays p = nn::load_params(dir + "flax.safetensors");
  EXPECT_EQ(p.names(),
            (std::vector<std::string>{"dense.bias", "dense.kernel", "layers.0.w", "layers.1.w"}));
  for (const std::string& name : p.names())
    EXPECT_EQ(p.at(name), read_npy(dir + "flax." + name + ".npy")) << name;
}

// Parameters saved as safetensors read back bit for bit, the format chosen by the suffix (an
// .npz beside it is a zip: the two writers are not confused).
TEST(NnCheckpoint, SafetensorsRoundTripChosenBySuffix) {
  ad::ParamArrays p;
  p.set("dense/w", Array::from<float>({2, 2}, {1.5f, -2.0f, 3.25f, 0.0f}));
  p.set("step", Array::scalar<int32_t>(7));
  const std::string base = ::testing::TempDir() + "/ckpt";
  nn::save_params(base + ".safetensors", p);
  nn::save_params(base + ".npz", p);
  for (const std::string ext : {".safetensors", ".npz"}) {
    ad::ParamArrays back = nn::load_params(base + ext);
    EXPECT_EQ(back.names(), p.names()) << ext;
    for (const std::string& name : p.names()) EXPECT_EQ(back.at(name), p.at(name)) << ext << name;
  }
  EXPECT_EQ(read_safetensors(base + ".safetensors").tensors.size(), 2u);
  EXPECT_THROW(nn::load_safetensors(base + ".npz"), IoError);  // a zip is no safetensors file
  std::filesystem::remove(base + ".safetensors");
  std::filesystem::remove(base + ".npz");
}

}  // namespace
}  // namespace hhlo
