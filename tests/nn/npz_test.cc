// .npz archives written by NumPy: members go through the .npy reader (parse_npy), so big-endian
// and Fortran-order members load as their logical arrays (tests/core/gen_npy_files.py made it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hhlo
