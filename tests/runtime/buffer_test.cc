#include <gtest/gtest.h>

#include <complex>

#include "runtime_util.h"

namespace hhlo {
namespace {

TEST(Buffer, RoundTripsEveryDtype) {
  for (DType t : kAllDTypes) {
    Array a(t, {3, 2});
    auto* bytes = static_cast<unsigned char*>(a.data());
    for (std::size_t i = 0; i < a.byte_size(); ++i)
      bytes[i] = static_cast<unsigned char>(3 * i + 1);
    if (t == DType::pred)
      for (std::size_t i = 0; i < a.byte_size(); ++i) bytes[i] = i % 3 == 0;
    Buffer b = test::cpu().buffer_from_host(a);
    EXPECT_EQ(b.dtype(), t) << dtype_name(t);
    EXPECT_EQ(b.dims(), (Dims{3, 2}));
    EXPECT_GE(b.on_device_size(), static_cast<int64_t>(a.byte_size()));
    EXPECT_EQ(b.to_host(), a) << dtype_name(t);
  }
}

TEST(Buffer, ScalarAndEmptyArrays) {
  Buffer s = test::cpu().buffer_from_host(Array::scalar<int64_t>(-7));
  EXPECT_EQ(s.dims(), Dims{});
  EXPECT_EQ(s.to_host().to_vector<int64_t>(), std::vector<int64_t>{-7});
  Buffer e = test::cpu().buffer_from_host(Array(DType::f32, {0, 3}));
  EXPECT_EQ(e.to_host().num_elements(), 0);
}

TEST(Buffer, WrongHostSizeIsRejected) {
  float data[3] = {1, 2, 3};
  EXPECT_THROW(test::cpu().buffer_from_host(data, sizeof data, {DType::f32, {4}}), Error);
  EXPECT_THROW(test::cpu().buffer_from_host(data, sizeof data, {DType::f32, {kDynamic}}), Error);
  Buffer b = test::cpu().buffer_from_host(data, sizeof data, {DType::f32, {3}});
  float out[2];
  EXPECT_THROW(b.to_host_async(out, sizeof out), Error);
}

TEST(Buffer, CopiesToAnotherDevice) {
  const Client& c = test::cpu();
  Array a = Array::from<float>({2}, {1.5f, -2.5f});
  Buffer b = c.buffer_from_host(a, c.devices()[1]);
  EXPECT_EQ(b.device(), c.devices()[1]);
  Buffer moved = b.copy_to_device(c.devices()[3]);
  EXPECT_EQ(moved.device(), c.devices()[3]);
  EXPECT_EQ(moved.to_host(), a);
}

TEST(Buffer, DeleteMakesFurtherUseAClearError) {
  Buffer b = test::cpu().buffer_from_host(Array::from<int32_t>({2}, {1, 2}));
  EXPECT_FALSE(b.is_deleted());
  b.delete_data();
  EXPECT_TRUE(b.is_deleted());
  EXPECT_THROW(b.to_host(), Error);
}

TEST(Buffer, ReadyEventAndAsyncCopy) {
  Buffer b = test::cpu().buffer_from_host(Array::from<double>({3}, {1, 2, 3}));
  b.ready_event().await();
  double out[3] = {};
  Event e = b.to_host_async(out, sizeof out);
  e.await();
  EXPECT_TRUE(e.is_ready());
  EXPECT_EQ(out[2], 3.0);
}

TEST(Buffer, DeviceOfAnotherClientIsRejected) {
  Client other = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  Array a = Array::from<float>({1}, {1});
  EXPECT_THROW(test::cpu().buffer_from_host(a, other.devices()[0]), Error);
  Buffer b = other.buffer_from_host(a);
  EXPECT_THROW(b.copy_to_device(test::cpu().devices()[0]), Error);
}

}  // namespace
}  // namespace hhlo
