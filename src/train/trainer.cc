#include "hhlo/train/trainer.h"

#include <fmt/format.h>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"

namespace hhlo::nn {

Module build_train_step(const BatchLossFn& loss_fn, const ad::ParamArrays& params, const ad::ParamArrays& state,
                        const Optimizer& opt, const std::vector<TensorType>& batch_types) {
  std::vector<TensorType> types;
  for (const auto& [n, a] : params) types.push_back(a.type());
  for (const auto& [n, a] : state) types.push_back(a.type());
  types.insert(types.end(), batch_types.begin(), batch_types.end());
  Module m;
  Func& f = m.add_func("main", types);
  ad::Params p, s;
  size_t i = 0;
  for (const auto& kv : params) p.set(kv.first, f.arg(i++));
  for (const auto& kv : state) s.set(kv.first, f.arg(i++));
  std::vector<Value> batch(f.args().begin() + static_cast<long>(i), f.args().end());
  Value loss = loss_fn(p, batch);
  ad::Params g = ad::grad(loss, p);
  auto [np_, ns] = opt.update(p, g, s);
  std::vector<Value> outs;
  for (const auto& kv : params) outs.push_back(np_.at(kv.first));
  for (const auto& kv : state) outs.push_back(ns.at(kv.first));
  if (outs.size() != params.size() + state.size()) throw Error("build_train_step: optimizer dropped entries");
  outs.push_back(loss);
  for (size_t k = 0; k + 1 < outs.size(); ++k) {
    if (outs[k].type() != types[k])
      throw Error(fmt::format("build_train_step: output {} has type {}, argument has {}", k,
                              outs[k].type().to_string(), types[k].to_string()));
    f.set_arg_attr(k, {"tf.aliasing_output", IntAttr{static_cast<int64_t>(k), DType::i32}});
  }
  f.ret(outs);
  return m;
}

Trainer::Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt, std::vector<TensorType> batch_types,
                 Session& session)
    : session_(&session) {
  ad::ParamArrays state = opt.init(init);
  Module m = build_train_step(loss, init, state, opt, batch_types);
  mlir_ = to_mlir(m, {.locations = false});
  exe_ = &session.compile(mlir_);
  for (const auto& [n, a] : init) {
    param_names_.push_back(n);
    param_types_.push_back(a.type());
    params_.push_back(session.client().buffer_from_host(a));
  }
  for (const auto& [n, a] : state) {
    state_names_.push_back(n);
    state_.push_back(session.client().buffer_from_host(a));
  }
}

Buffer Trainer::step_on_device(const std::vector<const Buffer*>& batch) {
  std::vector<const Buffer*> args;
  for (const auto& b : params_) args.push_back(&b);
  for (const auto& b : state_) args.push_back(&b);
  args.insert(args.end(), batch.begin(), batch.end());
  std::vector<Buffer> out = exe_->execute(args);
  size_t i = 0;
  for (auto& b : params_) b = std::move(out[i++]);
  for (auto& b : state_) b = std::move(out[i++]);
  ++steps_;
  return std::move(out[i]);
}

float Trainer::step(const std::vector<Array>& batch) {
  std::vector<Buffer> bufs;
  for (const auto& a : batch) bufs.push_back(session_->client().buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  for (const auto& b : bufs) ptrs.push_back(&b);
  Array loss = step_on_device(ptrs).to_host();
  return loss.dtype() == DType::f64 ? static_cast<float>(loss.to_vector<double>()[0]) : loss.to_vector<float>()[0];
}

ad::ParamArrays Trainer::params() const {
  ad::ParamArrays out;
  for (size_t i = 0; i < params_.size(); ++i) out.set(param_names_[i], params_[i].to_host());
  return out;
}

std::vector<const Buffer*> Trainer::param_buffers() const {
  std::vector<const Buffer*> out;
  for (const auto& b : params_) out.push_back(&b);
  return out;
}

void Trainer::set_params(const ad::ParamArrays& params) {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Array& a = params.at(param_names_[i]);
    if (a.type() != param_types_[i])
      throw Error(fmt::format("Trainer::set_params: '{}' has type {}, the model expects {}", param_names_[i],
                              a.type().to_string(), param_types_[i].to_string()));
    params_[i] = session_->client().buffer_from_host(a);
  }
}

Evaluator::Evaluator(BatchFn fn, const ad::ParamArrays& like, std::vector<TensorType> batch_types, Session& session)
    : session_(&session) {
  std::vector<TensorType> types;
  for (const auto& [n, a] : like) types.push_back(a.type());
  size_t np = types.size();
  types.insert(types.end(), batch_types.begin(), batch_types.end());
  Module m;
  Func& f = m.add_func("main", types);
  ad::Params p;
  size_t i = 0;
  for (const auto& kv : like) p.set(kv.first, f.arg(i++));
  std::vector<Value> batch(f.args().begin() + static_cast<long>(np), f.args().end());
  f.ret(fn(p, batch));
  exe_ = &session.compile(to_mlir(m, {.locations = false}));
}

std::vector<Array> Evaluator::run(const std::vector<const Buffer*>& params, const std::vector<Array>& batch) const {
  std::vector<Buffer> bufs;
  for (const auto& a : batch) bufs.push_back(session_->client().buffer_from_host(a));
  std::vector<const Buffer*> args = params;
  for (const auto& b : bufs) args.push_back(&b);
  std::vector<Array> out;
  for (const auto& b : exe_->execute(args)) out.push_back(b.to_host());
  return out;
}

}  // namespace hhlo::nn
