#include "hhlo/ir/module.h"

#include <fmt/format.h>

#include <functional>
#include <set>
#include <unordered_map>

#include "hhlo/ir/spmd.h"

namespace hhlo {

Location Location::from(const Loc& l) {
  // source_location file names are static strings: intern each once per thread.
  thread_local const char* last = nullptr;
  thread_local IString last_file;
  if (l.file_name() != last) {
    last_file = IString(l.file_name());
    last = l.file_name();
  }
  return {last_file, l.line(), l.column()};
}

size_t Func::TypeHash::operator()(const TensorType& t) const noexcept {
  size_t h = static_cast<size_t>(t.dtype) * 0x9E3779B97F4A7C15ull;
  for (int64_t d : t.dims) h = (h ^ static_cast<size_t>(d)) * 0x100000001B3ull;
  return h ^ (h >> 31);
}

namespace detail {
std::optional<Mesh> module_mesh(const Func& f, std::string_view name) {
  const Mesh* mesh = f.module().find_mesh(name);
  return mesh ? std::optional<Mesh>(*mesh) : std::nullopt;
}
}  // namespace detail

Func& Value::func() const {
  if (!func_) throw Error("use of an invalid (default-constructed) hhlo::Value");
  return *func_;
}

const TensorType& Value::type() const { return func().value_type(id_); }

int64_t Value::dim(int64_t i) const {
  int64_t r = rank();
  int64_t j = i < 0 ? i + r : i;
  if (j < 0 || j >= r)
    throw Error(fmt::format("dimension {} out of range for {}", i, type().to_string()));
  return dims()[static_cast<size_t>(j)];
}

const Op* Value::defining_op() const { return func().values_.at(id_).op(); }
uint32_t Value::index() const { return func().values_.at(id_).index; }

std::vector<TensorType> Block::returned_types() const {
  std::vector<TensorType> out;
  if (ops_.empty()) return out;
  const Op& last = *ops_.back();
  if (last.name() != "stablehlo.return" && last.name() != "func.return" &&
      last.name() != "sdy.return")
    return out;
  for (const Value& v : last.operands()) out.push_back(v.type());
  return out;
}

Value ValueRange::at(size_t i) const {
  if (i >= n_) throw std::out_of_range(fmt::format("ValueRange::at: index {} of {} values", i, n_));
  return (*this)[i];
}

Op::~Op() {
  if (n_operands_ + n_results_ > kInlineIds) delete[] ids_.heap;
}

Func* Op::func() const { return parent_ ? &parent_->func() : nullptr; }

const std::vector<std::unique_ptr<Block>>& Op::regions() const {
  static const std::vector<std::unique_ptr<Block>> none;
  return regions_ ? *regions_ : none;
}

const Attribute* Op::attr(std::string_view name) const {
  for (const auto& a : attrs_)
    if (a.name == name) return &a.value;
  return nullptr;
}

Func::Func(const void* module_id, std::string name, std::vector<TensorType> arg_types,
           Visibility visibility)
    : module_id_(module_id),
      name_(std::move(name)),
      visibility_(visibility),
      arg_types_(std::move(arg_types)),
      arg_attrs_(arg_types_.size()) {
  body_.func_ = this;
  for (size_t i = 0; i < arg_types_.size(); ++i)
    body_.args_.push_back(new_value(arg_types_[i], &body_, nullptr, static_cast<uint32_t>(i)));
  stack_.push_back(&body_);
}

Value Func::new_value(TensorType type, Block* block, Op* op, uint32_t index) {
  const TensorType* t = &*types_.insert(std::move(type)).first;
  if (op)
    values_.push_back(ValueInfo{t, op, index, false});
  else
    values_.push_back(ValueInfo{t, block, index, true});
  return Value(this, static_cast<uint32_t>(values_.size() - 1));
}

bool Func::visible(Value v, const Block* from) const {
  const Block* def = values_.at(v.id()).block();
  for (const Block* b = from; b; b = b->parent())
    if (b == def) return true;
  return false;
}

void Func::check_operands(std::string_view op, std::span<const Value> operands) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value& v = operands[i];
    if (!v.valid())
      throw Error(
          fmt::format("op '{}': operand {} is an invalid (default-constructed) Value", op, i));
    if (&v.func() != this)
      throw Error(fmt::format(
          "op '{}': operand {} ({}) belongs to function @{}, but the op is being built in "
          "function @{}; pass values between functions with call()",
          op, i, v.type().to_string(), v.func().name(), name_));
    if (!visible(v, stack_.back()))
      throw Error(fmt::format(
          "op '{}': operand {} ({}) of function @{} is used outside its region: values defined "
          "inside a region body are visible only inside that region",
          op, i, v.type().to_string(), name_));
  }
}

std::vector<Value> Func::append(OpState state) {
  if (returned_)
    throw Error(fmt::format("op '{}': function @{} has already returned", state.name, name_));
  check_operands(state.name, state.operands);
  Block* block = stack_.back();
  auto op = std::make_unique<Op>();
  Op* raw = op.get();
  raw->name_ = std::move(state.name);
  const size_t n = state.operands.size() + state.result_types.size();
  if (n > UINT32_MAX) throw Error(fmt::format("op '{}': {} operands and results", raw->name(), n));
  if (n > Op::kInlineIds) raw->ids_.heap = std::make_unique<uint32_t[]>(n).release();
  raw->n_operands_ = static_cast<uint32_t>(state.operands.size());  // both counts before ids()
  raw->n_results_ = static_cast<uint32_t>(state.result_types.size());
  uint32_t* ids = raw->ids();
  for (size_t i = 0; i < state.operands.size(); ++i) ids[i] = state.operands[i].id();
  raw->attrs_ = std::move(state.attrs);
  if (!state.regions.empty())
    raw->regions_ = std::make_unique<std::vector<std::unique_ptr<Block>>>(std::move(state.regions));
  raw->loc_ = std::move(state.loc);
  raw->parent_ = block;
  std::vector<Value> results;
  results.reserve(state.result_types.size());
  for (size_t i = 0; i < state.result_types.size(); ++i) {
    results.push_back(
        new_value(std::move(state.result_types[i]), block, raw, static_cast<uint32_t>(i)));
    ids[raw->n_operands_ + i] = results.back().id();
  }
  block->ops_.push_back(std::move(op));
  return results;
}

std::unique_ptr<Block> Func::build_region(std::string_view op,
                                          const std::vector<TensorType>& arg_types,
                                          const RegionBody& body, const Location& loc) {
  if (returned_) throw Error(fmt::format("op '{}': function @{} has already returned", op, name_));
  return build_block(arg_types, [&](const std::vector<Value>& args) {
    std::vector<Value> results = body(args);
    append(OpState{"stablehlo.return", std::move(results), {}, {}, {}, loc});
  });
}

void Func::ret(const std::vector<Value>& results, Loc loc) { ret_at(results, Location::from(loc)); }

void Func::ret_at(const std::vector<Value>& results, const Location& loc) {
  if (returned_) throw Error(fmt::format("function @{} has already returned", name_));
  if (stack_.size() != 1)
    throw Error(fmt::format("function @{}: ret() called while a region is being built", name_));
  append(OpState{"func.return", results, {}, {}, {}, loc});
  for (const Value& v : results) result_types_.push_back(v.type());
  result_attrs_.resize(result_types_.size());
  returned_ = true;
}

Module::Module() : id_(std::make_unique<Module*>(this)) {}
Module::~Module() = default;
Module::Module(Module&& other) noexcept
    : ModuleContents(std::move(other)), id_(std::move(other.id_)) {
  if (id_) *id_ = this;
}
Module& Module::operator=(Module&& other) noexcept {
  if (this == &other) return *this;
  ModuleContents::operator=(std::move(other));
  id_ = std::move(other.id_);
  if (id_) *id_ = this;
  return *this;
}

void Func::set_arg_attr(size_t i, NamedAttr attr) {
  auto& attrs = arg_attrs_.at(i);
  for (auto& a : attrs) {
    if (a.name == attr.name) {
      a.value = std::move(attr.value);
      return;
    }
  }
  attrs.push_back(std::move(attr));
}

namespace {
void set_named(std::vector<NamedAttr>& attrs, NamedAttr attr) {
  for (auto& a : attrs) {
    if (a.name == attr.name) {
      a.value = std::move(attr.value);
      return;
    }
  }
  attrs.push_back(std::move(attr));
}
const std::vector<NamedAttr> kNoAttrs;
}  // namespace

const std::vector<NamedAttr>& Func::result_attrs(size_t i) const {
  if (!returned_) return kNoAttrs;
  return result_attrs_.at(i);
}
void Func::set_result_attr(size_t i, NamedAttr attr) {
  set_named(result_attrs_.at(i), std::move(attr));
}
void Func::set_attr(NamedAttr attr) { set_named(attrs_, std::move(attr)); }
void Module::set_attr(NamedAttr attr) { set_named(attrs_, std::move(attr)); }

std::unique_ptr<Block> Func::build_block(
    const std::vector<TensorType>& arg_types,
    const std::function<void(const std::vector<Value>&)>& body) {
  if (returned_) throw Error(fmt::format("function @{} has already returned", name_));
  auto block = std::make_unique<Block>();
  block->func_ = this;
  block->parent_ = stack_.back();
  for (size_t i = 0; i < arg_types.size(); ++i)
    block->args_.push_back(new_value(arg_types[i], block.get(), nullptr, static_cast<uint32_t>(i)));
  stack_.push_back(block.get());
  struct Pop {
    std::vector<Block*>& s;
    ~Pop() { s.pop_back(); }
  } pop{stack_};
  body(block->args_);
  return block;
}

Func& Module::add_func(std::string name, std::vector<TensorType> arg_types, Visibility visibility) {
  if (name.empty()) throw Error("Module::add_func: empty function name");
  if (find(name)) throw Error(fmt::format("Module::add_func: function @{} already exists", name));
  funcs_.push_back(std::unique_ptr<Func>(
      new Func(id_.get(), std::move(name), std::move(arg_types), visibility)));
  return *funcs_.back();
}

Func* Module::find(std::string_view name) {
  for (auto& f : funcs_)
    if (f->name() == name) return f.get();
  return nullptr;
}

namespace {
/// Replaces symbol reference `from` by `to` in `a` (and in the arrays/dictionaries it holds).
void rename_symbol(Attribute& a, std::string_view from, const std::string& to) {
  Attribute::Variant& v = a.variant();
  if (auto* ref = std::get_if<SymbolRefAttr>(&v)) {
    if (ref->name == from) ref->name = to;
  } else if (auto* array = std::get_if<ArrayAttr>(&v)) {
    for (Attribute& e : array->values) rename_symbol(e, from, to);
  } else if (auto* dict = std::get_if<DictAttr>(&v)) {
    for (auto& [key, e] : dict->entries) rename_symbol(e, from, to);
  }
}
}  // namespace

void Module::rename_func(std::string_view from, std::string to) {
  Func* f = find(from);
  if (!f) throw Error(fmt::format("Module::rename_func: there is no function @{}", from));
  if (to.empty()) throw Error("Module::rename_func: empty function name");
  if (to == from) return;
  if (find(to)) throw Error(fmt::format("Module::rename_func: function @{} already exists", to));
  std::string old(from);  // `from` may view the name about to change
  std::function<void(Block&)> walk = [&](Block& b) {
    for (auto& op : b.ops_) {
      for (NamedAttr& a : op->attrs_) rename_symbol(a.value, old, to);
      if (op->regions_)
        for (auto& r : *op->regions_) walk(*r);
    }
  };
  for (auto& g : funcs_) walk(g->body_);
  f->name_ = std::move(to);
}

namespace {
/// Adds every symbol `a` refers to (and the arrays and dictionaries it holds) to `out`.
void symbols_in(const Attribute& a, std::set<std::string, std::less<>>& out) {
  const Attribute::Variant& v = a.variant();
  if (const auto* ref = std::get_if<SymbolRefAttr>(&v)) {
    out.insert(ref->name);
  } else if (const auto* array = std::get_if<ArrayAttr>(&v)) {
    for (const Attribute& e : array->values) symbols_in(e, out);
  } else if (const auto* dict = std::get_if<DictAttr>(&v)) {
    for (const auto& [key, e] : dict->entries) symbols_in(e, out);
  }
}

void symbols_in(const Block& b, std::set<std::string, std::less<>>& out) {
  for (const auto& op : b.ops()) {
    for (const NamedAttr& a : op->attrs()) symbols_in(a.value, out);
    for (const auto& r : op->regions()) symbols_in(*r, out);
  }
}
}  // namespace

std::size_t Module::erase_unreferenced_funcs(std::size_t first) {
  std::size_t removed = 0;
  for (bool again = true; again;) {
    std::set<std::string, std::less<>> referenced;
    for (const auto& f : funcs_) symbols_in(f->body(), referenced);
    again = false;
    for (std::size_t i = funcs_.size(); i-- > first;) {
      const Func& f = *funcs_[i];
      if (f.visibility() == Visibility::public_ || referenced.contains(f.name())) continue;
      funcs_.erase(funcs_.begin() + static_cast<std::ptrdiff_t>(i));
      ++removed;
      again = true;
    }
  }
  return removed;
}

const Func* Module::find(std::string_view name) const {
  for (auto& f : funcs_)
    if (f->name() == name) return f.get();
  return nullptr;
}

void Module::add_mesh(std::string name, Mesh mesh) {
  if (name.empty()) throw Error("Module::add_mesh: a mesh needs a name");
  if (find_mesh(name)) throw Error("Module::add_mesh: a mesh @" + name + " exists already");
  mesh.validate();
  meshes_.emplace_back(std::move(name), std::move(mesh));
}

const Mesh* Module::find_mesh(std::string_view name) const {
  for (const auto& [n, m] : meshes_)
    if (n == name) return &m;
  return nullptr;
}

}  // namespace hhlo
