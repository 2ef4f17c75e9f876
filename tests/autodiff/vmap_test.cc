// vmap against stacking, per op family: vmap(f)(xs) compiled and run on the CPU plugin equals f
// run per example on the slices of xs, stacked (tests/autodiff/vmap_util.h). Batched and
// unbatched operands (in_axes none) are mixed so that every branch of each rule runs.
#include "hhlo/autodiff/vmap.h"

#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/tensor.h"
#include "hhlo/session.h"
#include "vmap_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
using test::check_vmap;
using test::rand_f64;
constexpr ad::Axis none = std::nullopt;

Value cst(Value like, double v) { return ad::full_like(like, v); }
Value sum_over(Value x, std::vector<int64_t> dims) {
  return reduce(x, constant(x.func(), 0.0, x.dtype()), std::move(dims),
                [](Value a, Value b) { return add(a, b); });
}

TEST(Vmap, Elementwise) {
  auto f = [](const Vs& a) {
    Value x = a[0], y = a[1];
    Value t = add(multiply(tanh(x), y), exponential(x));
    Value s = select(compare(x, y, ComparisonDirection::GT), x, y);
    Value c = clamp(constant(x.func(), -0.5, x.dtype()), t, constant(x.func(), 0.5, x.dtype()));
    return Vs{subtract(t, s), c, convert(x, DType::f32), compare(x, y, ComparisonDirection::LT)};
  };
  Array x = rand_f64({4, 2, 3}, 1), y = rand_f64({4, 2, 3}, 2), y1 = rand_f64({2, 3}, 3);
  check_vmap(f, {x, y});
  check_vmap(f, {x, y1}, {0, none});
  check_vmap(f, {y1, x}, {none, 0});
  // Axis 1 in, axis 2 out.
  check_vmap(f, {rand_f64({2, 4, 3}, 4), y}, {1, 0}, {2, 1, 0, 0});
}

// StableHLO 1.23/1.24's exp2, log2 and fma, each operand batched or not.
TEST(Vmap, Exp2Log2AndFma) {
  auto f = [](const Vs& a) {
    Value x = a[0], y = a[1];
    return Vs{fma(x, y, exp2(x)), log2(add(abs(y), cst(y, 1.0)))};
  };
  Array x = rand_f64({4, 2, 3}, 1), y = rand_f64({4, 2, 3}, 2), y1 = rand_f64({2, 3}, 3);
  check_vmap(f, {x, y});
  check_vmap(f, {x, y1}, {0, none});
  check_vmap(f, {y1, x}, {none, 0});
}

TEST(Vmap, ScalarPredicateAndBoundsBatched) {
  // select with a scalar predicate and clamp with scalar bounds, each per example.
  auto f = [](const Vs& a) {
    Value p = compare(a[0], cst(a[0], 0.0), ComparisonDirection::GT);  // tensor<i1>
    return Vs{select(p, a[1], negate(a[1])), clamp(a[0], a[1], cst(a[0], 0.7))};
  };
  check_vmap(f, {rand_f64({5}, 1), rand_f64({5, 3}, 2)});
  check_vmap(f, {rand_f64({5}, 1), rand_f64({3}, 2)}, {0, none});
  check_vmap(f, {rand_f64({}, 1), rand_f64({5, 3}, 2)}, {none, 0});
}

TEST(Vmap, ShapeOps) {
  auto f = [](const Vs& a) {
    Value x = a[0];  // [2, 3]
    Value b = broadcast_in_dim(x, {4, 2, 3}, {1, 2});
    Value r = reshape(x, {3, 2});
    Value t = transpose(x, {1, 0});
    Value s = slice(x, {0, 1}, {2, 3}, {1, 2});
    Value c = concatenate({x, a[1]}, 1);
    Value p = pad(x, a[2], {1, 0}, {0, 2}, {1, 0});
    Value v = reverse(x, {1});
    Value i = add(x, convert(iota(x.func(), TensorType(DType::i32, {2, 3}), 1), x.dtype()));
    return Vs{b, r, t, s, c, p, v, i};
  };
  Array x = rand_f64({3, 2, 3}, 1), y = rand_f64({3, 2, 2}, 2), pv = rand_f64({3}, 3);
  check_vmap(f, {x, y, pv});
  check_vmap(f, {x, rand_f64({2, 2}, 4), rand_f64({}, 5)}, {0, none, none});
  check_vmap(f, {rand_f64({2, 3}, 6), y, pv}, {none, 0, 0});  // only the padding value batched
}

TEST(Vmap, DotGeneral) {
  auto mm = [](const Vs& a) {
    return Vs{dot_general(a[0], a[1], {{}, {}, {1}, {0}})};  // [2,3] x [3,4]
  };
  Array l = rand_f64({5, 2, 3}, 1), r = rand_f64({5, 3, 4}, 2);
  check_vmap(mm, {l, r});
  check_vmap(mm, {l, rand_f64({3, 4}, 3)}, {0, none});
  check_vmap(mm, {rand_f64({2, 3}, 4), r}, {none, 0});
  check_vmap(mm, {rand_f64({2, 5, 3}, 5), rand_f64({3, 4, 5}, 6)}, {1, 2}, {1});
  // With batching dims of its own: [6, 2, 3] x [6, 3, 4].
  auto bmm = [](const Vs& a) { return Vs{dot_general(a[0], a[1], {{0}, {0}, {2}, {1}})}; };
  check_vmap(bmm, {rand_f64({3, 6, 2, 3}, 7), rand_f64({3, 6, 3, 4}, 8)});
  check_vmap(bmm, {rand_f64({3, 6, 2, 3}, 7), rand_f64({6, 3, 4}, 8)}, {0, none});
  check_vmap(bmm, {rand_f64({6, 2, 3}, 7), rand_f64({3, 6, 3, 4}, 8)}, {none, 0});
}

TEST(Vmap, ReduceAndSort) {
  auto f = [](const Vs& a) {
    Value x = a[0];  // [3, 4]
    Value mx = reduce(x, constant(x.func(), -1e300, x.dtype()), {1},
                      [](Value p, Value q) { return maximum(p, q); });
    // Two-input reduce (value, index): argmax over dim 0.
    Value idx = iota(x.func(), TensorType(DType::i32, {3, 4}), 0);
    std::vector<Value> am =
        reduce({x, idx}, {constant(x.func(), -1e300, x.dtype()), constant(x.func(), 0, DType::i32)},
               {0}, [](const Vs& v) {
                 Value take = compare(v[2], v[0], ComparisonDirection::GT);
                 return Vs{select(take, v[2], v[0]), select(take, v[3], v[1])};
               });
    std::vector<Value> s = sort(
        {x, idx}, 1, [](const Vs& v) { return Vs{compare(v[0], v[1], ComparisonDirection::LT)}; });
    return Vs{sum_over(x, {0, 1}), mx, am[0], am[1], s[0], s[1]};
  };
  check_vmap(f, {rand_f64({4, 3, 4}, 1)});
  check_vmap(f, {rand_f64({3, 4, 5}, 2)}, {2});
}

TEST(Vmap, ReduceWindowAndSelectAndScatter) {
  auto f = [](const Vs& a) {
    Value x = a[0];  // [4, 6]
    Value pool = reduce_window({x}, {constant(x.func(), -1e300, x.dtype())}, {2, 3},
                               {.window_strides = {2, 1}, .padding = {{0, 1}, {1, 0}}},
                               [](const Vs& v) { return Vs{maximum(v[0], v[1])}; })[0];
    Value avg = reduce_window(
        {x}, {constant(x.func(), 0.0, x.dtype())}, {2, 2},
        {.window_strides = {1, 2}, .base_dilations = {2, 1}, .window_dilations = {1, 2}},
        [](const Vs& v) { return Vs{add(v[0], v[1])}; })[0];
    Value sas = select_and_scatter(
        x, a[1], constant(x.func(), 0.0, x.dtype()), {2, 2}, {2, 2}, {{0, 0}, {0, 0}},
        [](Value p, Value q) { return compare(p, q, ComparisonDirection::GE); },
        [](Value p, Value q) { return add(p, q); });
    return Vs{pool, avg, sas};
  };
  check_vmap(f, {rand_f64({3, 4, 6}, 1), rand_f64({3, 2, 3}, 2)});
  check_vmap(f, {rand_f64({3, 4, 6}, 1), rand_f64({2, 3}, 2)}, {0, none});
  check_vmap(f, {rand_f64({4, 6}, 1), rand_f64({3, 2, 3}, 2)}, {none, 0});
}

Array idx32(Dims d, std::vector<int32_t> v) { return Array::from<int32_t>(std::move(d), v); }

TEST(Vmap, GatherScatter) {
  // x[idx] along dim 0 of a [5, 3] operand with [2, 1] indices: rows.
  GatherDimensionNumbers g{.offset_dims = {1},
                           .collapsed_slice_dims = {0},
                           .start_index_map = {0},
                           .index_vector_dim = 1};
  ScatterDimensionNumbers s{.update_window_dims = {1},
                            .inserted_window_dims = {0},
                            .scatter_dims_to_operand_dims = {0},
                            .index_vector_dim = 1};
  auto f = [&](const Vs& a) {
    Value rows = gather(a[0], a[1], g, {1, 3});
    Value upd =
        scatter({a[0]}, a[1], {a[2]}, s, [](const Vs& v) { return Vs{add(v[0], v[1])}; })[0];
    return Vs{rows, upd};
  };
  Array x = rand_f64({4, 5, 3}, 1), u = rand_f64({4, 2, 3}, 2);
  Array i = idx32({4, 2, 1}, {0, 4, 1, 1, 3, 2, 4, 0});
  check_vmap(f, {x, i, u});
  check_vmap(f, {x, idx32({2, 1}, {3, 1}), u}, {0, none, 0});
  check_vmap(f, {rand_f64({5, 3}, 3), i, u}, {none, 0, 0});
  check_vmap(f, {x, i, rand_f64({2, 3}, 4)}, {0, 0, none});
}

TEST(Vmap, DynamicSliceAndUpdate) {
  auto f = [](const Vs& a) {
    Value ds = dynamic_slice(a[0], {a[1], a[2]}, {2, 2});
    Value dus = dynamic_update_slice(a[0], a[3], {a[2], a[1]});
    return Vs{ds, dus};
  };
  Array x = rand_f64({4, 4, 5}, 1), u = rand_f64({4, 2, 3}, 2);
  Array i = idx32({4}, {0, 3, 1, 7}), j = idx32({4}, {2, -1, 4, 1});  // clamped where out of range
  check_vmap(f, {x, i, j, u});
  check_vmap(f, {x, idx32({}, {1}), idx32({}, {2}), u}, {0, none, none, 0});
  check_vmap(f, {rand_f64({4, 5}, 3), i, idx32({}, {2}), rand_f64({2, 3}, 4)},
             {none, 0, none, none});
}

ConvDimensionNumbers nchw() { return conv_dimension_numbers("NCHW", "OIHW", "NCHW"); }
ConvDimensionNumbers nhwc() { return conv_dimension_numbers("NHWC", "HWIO", "NHWC"); }

TEST(Vmap, Convolution) {
  auto f = [](const Vs& a) {
    return Vs{
        convolution(a[0], a[1], nchw(), {.window_strides = {1, 2}, .padding = {{1, 0}, {0, 1}}})};
  };
  // lhs [2, 4, 5, 5], kernel [3, 4, 2, 2].
  Array l = rand_f64({3, 2, 4, 5, 5}, 1), k = rand_f64({3, 3, 4, 2, 2}, 2);
  check_vmap(f, {l, k}, {}, {}, 1e-11);
  check_vmap(f, {l, rand_f64({3, 4, 2, 2}, 3)}, {0, none}, {}, 1e-11);
  check_vmap(f, {rand_f64({2, 4, 5, 5}, 4), k}, {none, 0}, {}, 1e-11);
  // Feature groups (2): kernel [4, 2, 2, 2] (in features 4 / 2), NHWC layout for variety.
  auto g = [](const Vs& a) {
    return Vs{convolution(a[0], a[1], nhwc(), {.feature_group_count = 2})};
  };
  Array lg = rand_f64({3, 2, 5, 5, 4}, 5), kg = rand_f64({3, 2, 2, 2, 4}, 6);
  check_vmap(g, {lg, kg}, {}, {}, 1e-11);
  check_vmap(g, {lg, rand_f64({2, 2, 2, 4}, 7)}, {0, none}, {}, 1e-11);
  check_vmap(g, {rand_f64({2, 5, 5, 4}, 8), kg}, {none, 0}, {}, 1e-11);
  // Batch groups (2): lhs batch 4, kernel out features 6 (divisible by 2).
  auto h = [](const Vs& a) {
    return Vs{convolution(a[0], a[1], nchw(), {.batch_group_count = 2})};
  };
  Array lh = rand_f64({3, 4, 2, 4, 4}, 9), kh = rand_f64({3, 6, 2, 2, 2}, 10);
  check_vmap(h, {lh, kh}, {}, {}, 1e-11);
  check_vmap(h, {lh, rand_f64({6, 2, 2, 2}, 11)}, {0, none}, {}, 1e-11);
  check_vmap(h, {rand_f64({4, 2, 4, 4}, 12), kh}, {none, 0}, {}, 1e-11);
}

TEST(Vmap, WhileFixpointAndBatchedPredicate) {
  // for i in range(5): c = c * x + i  (the carry c starts unbatched, becomes batched via x).
  auto counted = [](const Vs& a) {
    Func& f = a[0].func();
    Vs init = {constant(f, 0, DType::i32), constant(f, 1.0, a[0].dtype(), {3}), a[0]};
    Vs r = while_loop(
        init,
        [](const Vs& v) {
          return Vs{compare(v[0], constant(v[0].func(), 5, DType::i32), ComparisonDirection::LT)};
        },
        [](const Vs& v) {
          Value i = convert(broadcast_in_dim(v[0], {3}, {}), v[1].dtype());
          return Vs{add(v[0], constant(v[0].func(), 1, DType::i32)), add(multiply(v[1], v[2]), i),
                    v[2]};
        });
    return Vs{r[0], r[1]};
  };
  check_vmap(counted, {rand_f64({4, 3}, 1)});
  // Per-example trip counts: halve x until its sum is below a per-example bound.
  auto until = [](const Vs& a) {
    Vs r = while_loop(
        {a[0], constant(a[0].func(), 0, DType::i32)},
        [&](const Vs& v) {
          return Vs{compare(sum_over(v[0], {0}), a[1], ComparisonDirection::GT)};
        },
        [](const Vs& v) {
          return Vs{multiply(v[0], cst(v[0], 0.5)),
                    add(v[1], constant(v[1].func(), 1, DType::i32))};
        });
    return r;
  };
  Array x = rand_f64({4, 3}, 2, 1.0, 2.0);
  check_vmap(until, {x, Array::from<double>({4}, {0.1, 1.0, 4.0, 100.0})});
  check_vmap(until, {x, Array::scalar<double>(0.5)}, {0, none});
}

TEST(Vmap, IfAndCase) {
  auto f = [](const Vs& a) {
    Value p = compare(a[1], cst(a[1], 0.0), ComparisonDirection::GT);
    Vs r = if_(
        p,
        [&] {
          return Vs{sine(a[0]), a[1]};
        },
        [&] {
          return Vs{cosine(a[0]), cst(a[1], 2.0)};
        });
    Vs c = case_(a[2], {[&] { return Vs{exponential(a[0])}; }, [&] { return Vs{negate(a[0])}; },
                        [&] { return Vs{a[0]}; }});
    return Vs{r[0], r[1], c[0]};
  };
  Array x = rand_f64({5, 3}, 1), s = rand_f64({5}, 2);
  Array k = idx32({5}, {0, 1, 2, 7, -3});  // out of range runs the last branch
  check_vmap(f, {x, s, k});
  check_vmap(f, {x, Array::scalar<double>(0.3), idx32({}, {1})}, {0, none, none});
  check_vmap(f, {rand_f64({3}, 3), s, k}, {none, 0, 0});
}

TEST(Vmap, LinalgFftAndMore) {
  auto f = [](const Vs& a) {
    Value x = a[0];  // [3, 3]
    Value spd = add(dot_general(x, x, {{}, {}, {1}, {1}}), cst(x, 3.0));
    Value l = cholesky(spd, true);
    Value sol = triangular_solve(l, a[1], {.left_side = true, .lower = true});
    Value spec = fft(convert(x, DType::c128), FftType::FFT, {3});
    Value rs = real(fft(spec, FftType::IFFT, {3}));
    Value m = map({x, a[1]}, [](const Vs& v) { return Vs{multiply(v[0], v[1])}; });
    Vs ob = optimization_barrier({x, a[1]});
    Value bits = bitcast_convert(x, DType::i64);
    Value rp = reduce_precision(x, 5, 10);
    return Vs{l, sol, rs, m, ob[0], ob[1], bits, rp, get_dimension_size(x, 1)};
  };
  check_vmap(f, {rand_f64({4, 3, 3}, 1), rand_f64({4, 3, 3}, 2)}, {}, {}, 1e-10);
  check_vmap(f, {rand_f64({4, 3, 3}, 1), rand_f64({3, 3}, 2)}, {0, none},
             {0, 0, 0, 0, 0, none, 0, 0, none}, 1e-10);
}

TEST(Vmap, BatchNorm) {
  auto f = [](const Vs& a) {
    Vs t = batch_norm_training(a[0], a[1], a[2], 1e-3f, 1);
    Value inf = batch_norm_inference(a[0], a[1], a[2], t[1], t[2], 1e-3f, 1);
    Vs g = batch_norm_grad(a[0], a[1], t[1], t[2], inf, 1e-3f, 1);
    return Vs{t[0], t[1], t[2], inf, g[0], g[1], g[2]};
  };
  check_vmap(f, {rand_f64({3, 4, 2, 5}, 1), rand_f64({3, 2}, 2), rand_f64({3, 2}, 3)}, {}, {},
             1e-10);
  check_vmap(f, {rand_f64({3, 4, 2, 5}, 1), rand_f64({2}, 2), rand_f64({2}, 3)}, {0, none, none},
             {}, 1e-10);
}

TEST(Vmap, RngBitGeneratorPerExampleState) {
  auto f = [](const Vs& a) {
    return rng_bit_generator(a[0], RngAlgorithm::THREE_FRY, TensorType(DType::ui32, {2, 3}));
  };
  Array s(DType::ui64, {3, 2});
  auto* p = static_cast<uint64_t*>(s.data());
  for (int i = 0; i < 6; ++i) p[i] = 1000 + 17 * i;
  check_vmap(f, {s});
}

TEST(Vmap, RngWithBatchedBoundsStaysInRange) {
  // No stacking reference for random draws: each example's values lie in its own [a, b).
  Module m;
  Func& g = m.add_func("main", {TensorType(DType::f32, {4}), TensorType(DType::f32, {4})});
  g.ret(ad::vmap([](const Vs& a) { return Vs{rng(a[0], a[1], {50}, RngDistribution::UNIFORM)}; },
                 {g.arg(0), g.arg(1)}));
  Array lo = Array::from<float>({4}, {0, 10, -5, 100}),
        hi = Array::from<float>({4}, {1, 11, -4, 200});
  Array r = run(m, {lo, hi})[0];
  ASSERT_EQ(r.dims(), (Dims{4, 50}));
  auto v = r.values<float>();
  for (int e = 0; e < 4; ++e)
    for (int k = 0; k < 50; ++k) {
      EXPECT_GE(v[e * 50 + k], lo.values<float>()[e]);
      EXPECT_LT(v[e * 50 + k], hi.values<float>()[e]);
    }
}

// Where the upper bound's spacing is coarse, a + (b - a) u rounds up to b for every u >= 1/2
// (here a = 2^27, b = a + 16, spacing 16): the batched rng must still stay below b, as the spec's
// rng does. Without the rule's clamp about half of the 200 draws would equal b.
TEST(Vmap, RngWithBatchedBoundsNeverReachesTheUpperBound) {
  Module m;
  Func& g = m.add_func("main", {TensorType(DType::f32, {2}), TensorType(DType::f32, {2})});
  g.ret(ad::vmap([](const Vs& a) { return Vs{rng(a[0], a[1], {100}, RngDistribution::UNIFORM)}; },
                 {g.arg(0), g.arg(1)}));
  const float a = 134217728.0f, b = a + 16;
  Array r = run(m, {Array::from<float>({2}, {a, a}), Array::from<float>({2}, {b, b})})[0];
  for (float v : r.values<float>()) {
    EXPECT_GE(v, a);
    EXPECT_LT(v, b);
  }
}

TEST(Vmap, FuncCallIsInlined) {
  Module src;
  Func& sq = src.add_func("square", {TensorType(DType::f64, {3})}, Visibility::private_);
  sq.ret({multiply(sq.arg(0), sq.arg(0))});
  Func& per = src.add_func("per", {TensorType(DType::f64, {3})});
  per.ret({add(call(sq, {per.arg(0)})[0], per.arg(0))});
  Module m;
  Func& g = m.add_func("main", {TensorType(DType::f64, {2, 3})});
  g.ret(ad::vmap(per, {g.arg(0)}, {0}, {0}, &src));
  Array x = rand_f64({2, 3}, 1);
  Array r = run(m, {x})[0];
  for (int i = 0; i < 6; ++i) {
    double v = x.values<double>()[i];
    EXPECT_NEAR(r.values<double>()[i], v * v + v, 1e-15);
  }
}

TEST(Vmap, Errors) {
  Module m;
  Func& g = m.add_func("main", {TensorType(DType::f64, {2, 3}), TensorType(DType::f64, {4, 3})});
  auto id = [](const Vs& a) { return a; };
  try {
    ad::vmap(id, {g.arg(0), g.arg(1)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inconsistent sizes"), std::string::npos) << e.what();
  }
  try {
    ad::vmap(id, {g.arg(0)}, {none});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at least one batched argument"), std::string::npos);
  }
  try {
    ad::vmap(id, {g.arg(0)}, {0}, {none});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out_axes[0] is none"), std::string::npos) << e.what();
  }
  try {
    ad::vmap(id, {g.arg(0)}, {2});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
  try {
    ad::vmap(
        [](const Vs& a) { return custom_call(a[0].func(), "my_kernel", {a[0]}, {a[0].type()}); },
        {g.arg(0)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("custom call target 'my_kernel'"), std::string::npos)
        << e.what();
  }
  // A per-example init value of reduce is refused, naming the op.
  try {
    ad::vmap(
        [](const Vs& a) {
          Value init = reshape(slice(a[0], {0}, {1}), {});
          return Vs{reduce(a[0], init, {0}, [](Value p, Value q) { return add(p, q); })};
        },
        {g.arg(0)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vmap of 'stablehlo.reduce'"), std::string::npos)
        << e.what();
  }
}

TEST(Vmap, CustomCallWithRegisteredRule) {
  // A rule that batches the target by calling it once on the batch (what a kernel that takes a
  // leading batch dimension would register); the program is only built, not run.
  ad::register_custom_batching(
      "rowwise_kernel", [](const Op& op, const std::vector<ad::Batched>& xs, int64_t n) {
        (void)op;
        Value x = ad::materialize(xs[0], n);
        return std::vector<ad::Batched>{
            {custom_call(x.func(), "rowwise_kernel", {x}, {x.type()})[0], true}};
      });
  Module m;
  Func& g = m.add_func("main", {TensorType(DType::f32, {5, 3})});
  Vs r = ad::vmap(
      [](const Vs& a) { return custom_call(a[0].func(), "rowwise_kernel", {a[0]}, {a[0].type()}); },
      {g.arg(0)});
  EXPECT_EQ(r[0].type(), TensorType(DType::f32, {5, 3}));
}

TEST(Vmap, EveryOpWithOperandsHasABatchingRule) {
  std::vector<std::string> have = ad::registered_batchings();
  for (std::string_view op : supported_ops()) {
    // No operands (never batched), terminators, calls (inlined), custom calls (per target),
    // composites (per name, else their decomposition), tokens (no elements to batch).
    if (op == "stablehlo.constant" || op == "stablehlo.iota" || op == "stablehlo.replica_id" ||
        op == "stablehlo.partition_id" || op == "stablehlo.return" || op == "func.return" ||
        op == "func.call" || op == "stablehlo.custom_call" || op == "stablehlo.composite" ||
        op == "stablehlo.after_all" || op == "stablehlo.create_token")
      continue;
    EXPECT_TRUE(std::find(have.begin(), have.end(), std::string(op)) != have.end())
        << "no batching rule for " << op;
  }
}

}  // namespace
}  // namespace hhlo
