// fft: forward/inverse, complex and real FFTs over trailing dimensions.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_fft(const TensorType& x, FftType type, std::span<const int64_t> len) {
  constexpr std::string_view op = "fft";
  int64_t L = static_cast<int64_t>(len.size());
  // (C1)
  if (L < 1 || L > 3 || L > x.rank())
    detail::fail(op, "C1", "fft_length {} must have 1 to 3 entries and at most rank({}) = {}",
                 detail::list(len), x.to_string(), x.rank());
  // (C2)
  DType out = x.dtype;
  switch (type) {
    case FftType::FFT:
    case FftType::IFFT:
      if (!is_complex(x.dtype))
        detail::fail(op, "C2", "{} needs a complex operand, got {}", enum_name(type),
                     x.to_string());
      break;
    case FftType::RFFT:
      if (x.dtype != DType::f32 && x.dtype != DType::f64)
        detail::fail(op, "C2", "RFFT needs an f32/f64 operand, got {}", x.to_string());
      out = x.dtype == DType::f64 ? DType::c128 : DType::c64;
      break;
    case FftType::IRFFT:
      if (!is_complex(x.dtype))
        detail::fail(op, "C2", "IRFFT needs a complex operand, got {}", x.to_string());
      out = complex_part(x.dtype);
      break;
  }
  // (C3) fft_length holds sizes: a negative one would make a negative result dimension.
  for (int64_t n : len)
    if (n < 0) detail::fail(op, "C3", "fft_length {} holds a negative size", detail::list(len));
  Dims dims = x.dims;
  size_t base = dims.size() - static_cast<size_t>(L);
  for (size_t i = 0; i < len.size(); ++i) {
    bool last = i + 1 == len.size();
    int64_t want = (type == FftType::IRFFT && last) ? len[i] / 2 + 1 : len[i];
    if (!detail::dim_compatible(dims[base + i], want))
      detail::fail(op, "C3", "operand {} dim {} has size {}, fft_length {} needs {}", x.to_string(),
                   base + i, dims[base + i], detail::list(len), want);
    if (last && type == FftType::RFFT) dims[base + i] = len[i] / 2 + 1;
    if (last && type == FftType::IRFFT) dims[base + i] = len[i];
  }
  return TensorType{out, dims};
}

Value fft(Value operand, FftType type, std::vector<int64_t> fft_length, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("fft", ops);
  TensorType t = infer_fft(operand.type(), type, fft_length);
  return f.append({"stablehlo.fft",
                   {operand},
                   {t},
                   {{"fft_type", type}, {"fft_length", i64_array(std::move(fft_length))}},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_fft_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_fft(op.operands[0], op.get<FftType>("fft_type"), op.i64s("fft_length"))};
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.fft", infer_fft_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::fft_ops() { return kOps; }

}  // namespace hhlo
