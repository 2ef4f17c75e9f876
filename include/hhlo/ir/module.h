// The SSA IR: Module > Func > Block > Op, with Value handles (DESIGN.md "The IR").
// A Func is also its own builder: op builders (hhlo/ir/ops.h) append to the innermost open block
// of the function their operands belong to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/attribute.h"
#include "hhlo/ir/interned.h"

namespace hhlo {

class Func;
class Block;
class Op;
class Module;

/// The call site recorded for each op; every builder takes `Loc loc = Loc::current()` last.
using Loc = std::source_location;

/// A source position printed as MLIR `loc("file":line:col)`; empty file means `loc(unknown)`.
/// `text`, when not empty, is any other MLIR location kept verbatim from a parsed file (a name,
/// call-site or fused location, aliases resolved) and is printed as `loc(text)` instead.
/// `file` and `text` are interned (IString: read them like `const std::string&`), so a Location
/// is 32 bytes and the thousands of ops of one file share one copy of its name.
struct Location {
  IString file;
  uint32_t line = 0, column = 0;
  IString text;
  /// Line of the op in the text it was parsed from (1-based; 0 for ops built in C++). Not part of
  /// the MLIR location and never printed: error messages about imported ops use it.
  uint32_t source_line = 0;
  /// The builder call site `l` (file name interned once per thread and file).
  static Location from(const Loc& l);
};

/// A cheap SSA value handle: the owning function plus an id unique within it. Copyable, trivially
/// destructible; valid as long as its Func lives. A default-constructed Value is invalid.
class Value {
 public:
  Value() = default;
  Value(Func* func, uint32_t id) : func_(func), id_(id) {}
  bool valid() const { return func_ != nullptr; }
  /// The owning function. Throws hhlo::Error on an invalid value.
  Func& func() const;
  uint32_t id() const { return id_; }
  /// Tensor type of the value. Throws hhlo::Error on an invalid value.
  const TensorType& type() const;
  DType dtype() const { return type().dtype; }
  const Dims& dims() const { return type().dims; }
  int64_t rank() const { return type().rank(); }
  /// Size of dimension `i` (negative counts from the end). Throws hhlo::Error when out of range.
  int64_t dim(int64_t i) const;
  /// The op producing this value, or nullptr for a block argument.
  const Op* defining_op() const;
  /// Index among the defining op's results (or the block argument index).
  uint32_t index() const;
  bool operator==(const Value&) const = default;

 private:
  Func* func_ = nullptr;
  uint32_t id_ = 0;
};
static_assert(std::is_trivially_destructible_v<Value>);

/// A basic block: arguments plus ops. A function body or one region of an op.
class Block {
 public:
  const std::vector<Value>& args() const { return args_; }
  Value arg(size_t i) const { return args_.at(i); }
  const std::vector<std::unique_ptr<Op>>& ops() const { return ops_; }
  /// The block enclosing this one (the block holding the op owning this region); nullptr for a
  /// function body.
  Block* parent() const { return parent_; }
  Func& func() const { return *func_; }
  /// Operand types of the block's terminator (`stablehlo.return` / `func.return`); empty if none.
  std::vector<TensorType> returned_types() const;

 private:
  friend class Func;
  friend class Module;
  Func* func_ = nullptr;
  Block* parent_ = nullptr;
  std::vector<Value> args_;
  std::vector<std::unique_ptr<Op>> ops_;
};

/// The operands or the results of an op, read like a `const std::vector<Value>&`: `size`,
/// `empty`, `[i]`, `at(i)` (throws std::out_of_range), `front`, `back`, iteration, and an implicit
/// copy into a `std::vector<Value>`. The op stores only the value ids (4 bytes each, inside the
/// op for up to four), so each element is a Value made on the fly: take it by value or by
/// `const Value&`, not by `Value&`. Valid as long as the op lives.
class ValueRange {
 public:
  /// Random-access in the C++20 sense (`iterator_concept`); its `reference` is the Value itself.
  class iterator {
   public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using reference = Value;
    using pointer = void;
    iterator() = default;
    iterator(Func* f, const uint32_t* p) : f_(f), p_(p) {}
    Value operator*() const { return Value(f_, *p_); }
    Value operator[](difference_type i) const { return Value(f_, p_[i]); }
    iterator& operator++() {
      ++p_;
      return *this;
    }
    iterator operator++(int) {
      iterator t = *this;
      ++p_;
      return t;
    }
    iterator& operator--() {
      --p_;
      return *this;
    }
    iterator operator--(int) {
      iterator t = *this;
      --p_;
      return t;
    }
    iterator& operator+=(difference_type n) {
      p_ += n;
      return *this;
    }
    iterator& operator-=(difference_type n) {
      p_ -= n;
      return *this;
    }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(iterator a, iterator b) { return a.p_ - b.p_; }
    bool operator==(const iterator& o) const { return p_ == o.p_; }
    auto operator<=>(const iterator& o) const { return p_ <=> o.p_; }

   private:
    Func* f_ = nullptr;
    const uint32_t* p_ = nullptr;
  };
  ValueRange() = default;
  ValueRange(Func* f, const uint32_t* ids, size_t n) : f_(f), ids_(ids), n_(n) {}
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Value operator[](size_t i) const { return Value(f_, ids_[i]); }
  /// Element `i`; throws std::out_of_range when `i >= size()`.
  Value at(size_t i) const;
  Value front() const { return (*this)[0]; }
  Value back() const { return (*this)[n_ - 1]; }
  iterator begin() const { return iterator(f_, ids_); }
  iterator end() const { return iterator(f_, ids_ + n_); }
  std::vector<Value> vec() const { return std::vector<Value>(begin(), end()); }
  operator std::vector<Value>() const { return vec(); }  // NOLINT: implicit by design
  friend bool operator==(const ValueRange& a, const std::vector<Value>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  Func* f_ = nullptr;
  const uint32_t* ids_ = nullptr;
  size_t n_ = 0;
};

/// One operation: StableHLO name ("stablehlo.add", "func.call", ...), operands, results, typed
/// attributes, regions and the call site that built it. The name is interned (one copy per
/// process of each op name); operands and results are stored as value ids, inside the op when
/// there are at most four of them together (the common case), and regions only when there are
/// some: a parsed `stablehlo.add` is one 104-byte allocation.
class Op {
 public:
  Op() = default;
  ~Op();
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  const std::string& name() const { return name_.str(); }
  ValueRange operands() const { return ValueRange(func(), ids(), n_operands_); }
  ValueRange results() const { return ValueRange(func(), ids() + n_operands_, n_results_); }
  /// Result `i`; throws std::out_of_range when there is no such result.
  Value result(size_t i = 0) const { return results().at(i); }
  const std::vector<NamedAttr>& attrs() const { return attrs_; }
  /// The attribute named `name`, or nullptr.
  const Attribute* attr(std::string_view name) const;
  /// The op's regions in order; empty for most ops.
  const std::vector<std::unique_ptr<Block>>& regions() const;
  const Location& loc() const { return loc_; }
  Block* parent() const { return parent_; }

 private:
  friend class Func;
  friend class Module;
  static constexpr uint32_t kInlineIds = 4;
  Func* func() const;
  const uint32_t* ids() const {
    return n_operands_ + n_results_ <= kInlineIds ? ids_.inline_ids : ids_.heap;
  }
  uint32_t* ids() { return const_cast<uint32_t*>(std::as_const(*this).ids()); }
  IString name_;
  uint32_t n_operands_ = 0, n_results_ = 0;
  union Ids {
    uint32_t inline_ids[kInlineIds];
    uint32_t* heap;
  } ids_{};
  std::vector<NamedAttr> attrs_;
  std::unique_ptr<std::vector<std::unique_ptr<Block>>> regions_;
  Location loc_;
  Block* parent_ = nullptr;
};

/// Everything needed to append an op; result types must already be inferred.
struct OpState {
  std::string name;
  std::vector<Value> operands;
  std::vector<TensorType> result_types;
  std::vector<NamedAttr> attrs;
  std::vector<std::unique_ptr<Block>> regions;
  Location loc;
};

/// A region body: receives the block arguments, returns the values for `stablehlo.return`.
using RegionBody = std::function<std::vector<Value>(const std::vector<Value>& args)>;

enum class Visibility : uint8_t { public_, private_ };

/// A `func.func`: one body block with typed arguments, ended by `ret`. Non-copyable, non-movable
/// (values point at it); owned by its Module.
class Func {
 public:
  Func(const Func&) = delete;
  Func& operator=(const Func&) = delete;

  const std::string& name() const { return name_; }
  Visibility visibility() const { return visibility_; }
  /// Makes the function public (`func.func public`) or private (`func.func private`).
  void set_visibility(Visibility v) { visibility_ = v; }
  Value arg(size_t i) const { return body_.arg(i); }
  const std::vector<Value>& args() const { return body_.args(); }
  const std::vector<TensorType>& arg_types() const { return arg_types_; }
  /// Result types, known once `ret` was called.
  const std::vector<TensorType>& result_types() const { return result_types_; }
  bool returned() const { return returned_; }
  const Block& body() const { return body_; }
  /// True when both functions belong to the same Module.
  bool same_module(const Func& other) const { return module_id_ == other.module_id_; }
  /// The Module owning this function (it follows the Module when that is moved): where op
  /// builders add the private functions an op refers to (a `composite`'s decomposition).
  Module& module() const { return **static_cast<Module* const*>(module_id_); }
  /// Attributes of argument `i`, printed after its type in the signature
  /// (`%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}`); empty by default.
  const std::vector<NamedAttr>& arg_attrs(size_t i) const { return arg_attrs_.at(i); }
  /// Sets (or replaces) attribute `attr.name` on argument `i`. Used for input/output aliasing:
  /// `tf.aliasing_output = k : i32` donates argument `i` to result `k` (see runtime donation).
  /// Throws std::out_of_range when `i` is not an argument index.
  void set_arg_attr(size_t i, NamedAttr attr);
  /// Attributes of result `i` (`-> (tensor<4xf32> {jax.result_info = "result"})`); empty by
  /// default, and for every index before `ret`. Throws std::out_of_range after `ret` when `i` is
  /// not a result index.
  const std::vector<NamedAttr>& result_attrs(size_t i) const;
  /// Sets (or replaces) attribute `attr.name` on result `i`. Throws std::out_of_range when `i` is
  /// not a result index (call after `ret`).
  void set_result_attr(size_t i, NamedAttr attr);
  /// Function attributes, printed as `attributes {...}` after the signature; empty by default.
  const std::vector<NamedAttr>& attrs() const { return attrs_; }
  /// Sets (or replaces) function attribute `attr.name`.
  void set_attr(NamedAttr attr);

  /// Ends the function with `func.return results...` and fixes its result types.
  /// Throws hhlo::Error when called twice, inside an open region, or with a value of another
  /// function or of a closed region.
  void ret(const std::vector<Value>& results, Loc loc = Loc::current());
  /// `ret` with an explicit location (used by the parser).
  void ret_at(const std::vector<Value>& results, const Location& loc);

  // ---- Builder interface (used by op builders; stable for other layers) ----
  /// Checks that every operand is valid, belongs to this function and is visible from the current
  /// insertion block. Throws hhlo::Error naming op, operand and both functions otherwise.
  void check_operands(std::string_view op, std::span<const Value> operands) const;
  /// Appends an op (operands checked first; nothing changes if the check throws) and returns its
  /// results. Throws hhlo::Error after `ret`.
  std::vector<Value> append(OpState state);
  /// Builds a detached region block with arguments of `arg_types` by running `body` with this
  /// block as insertion point, then appends `stablehlo.return` of what body returned. If `body`
  /// throws, the function is left unchanged and the exception propagates.
  std::unique_ptr<Block> build_region(std::string_view op, const std::vector<TensorType>& arg_types,
                                      const RegionBody& body, const Location& loc);
  /// Like build_region, but `body` appends every op of the block itself, terminator included
  /// (nothing is appended after it). Used by the parser for regions of any op.
  std::unique_ptr<Block> build_block(const std::vector<TensorType>& arg_types,
                                     const std::function<void(const std::vector<Value>&)>& body);
  /// The block new ops go to (the innermost region being built, else the body).
  const Block& insertion_block() const { return *stack_.back(); }
  /// Type of value `id` (what Value::type() returns).
  const TensorType& value_type(uint32_t id) const { return *values_.at(id).type; }

 private:
  friend class Module;
  friend class Value;
  Func(const void* module_id, std::string name, std::vector<TensorType> arg_types,
       Visibility visibility);
  Value new_value(TensorType type, Block* block, Op* op, uint32_t index);
  bool visible(Value v, const Block* from) const;

  // 24 bytes per value: a block argument records its block, an op result its op (whose
  // parent() is the block).
  struct ValueInfo {
    const TensorType* type;  // in types_
    const void* owner;       // const Block* when is_arg, else const Op*
    uint32_t index;
    bool is_arg;
    const Block* block() const {
      return is_arg ? static_cast<const Block*>(owner) : static_cast<const Op*>(owner)->parent();
    }
    const Op* op() const { return is_arg ? nullptr : static_cast<const Op*>(owner); }
  };
  struct TypeHash {
    size_t operator()(const TensorType& t) const noexcept;
  };
  const void* module_id_;
  std::string name_;
  Visibility visibility_;
  std::vector<TensorType> arg_types_, result_types_;
  std::vector<std::vector<NamedAttr>> arg_attrs_, result_attrs_;
  std::vector<NamedAttr> attrs_;
  bool returned_ = false;
  std::unordered_set<TensorType, TypeHash> types_;  // each distinct value type once (stable nodes)
  Block body_;
  std::deque<ValueInfo> values_;
  std::vector<Block*> stack_;
};

namespace detail {
/// Everything a Module holds but its identity, moved as one by Module's move operations: a member
/// added here cannot be left out of them. Add new Module members here, not to Module.
struct ModuleContents {
  std::string name_;
  std::vector<NamedAttr> attrs_;
  std::vector<std::pair<std::string, Mesh>> meshes_;
  std::vector<std::unique_ptr<Func>> funcs_;
};
}  // namespace detail

/// A `module`: an ordered list of functions; the entry point is `@main`. Movable, not copyable.
class Module : private detail::ModuleContents {
 public:
  Module();
  /// Moves the functions; Func::module() of each then returns the new Module.
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  ~Module();

  /// Adds an empty function. Throws hhlo::Error if `name` is taken or empty.
  Func& add_func(std::string name, std::vector<TensorType> arg_types,
                 Visibility visibility = Visibility::public_);
  /// The function named `name`, or nullptr.
  Func* find(std::string_view name);
  const Func* find(std::string_view name) const;
  const std::vector<std::unique_ptr<Func>>& funcs() const { return funcs_; }
  /// Renames function `@from` to `@to` and every reference to it: the `callee` of each
  /// `func.call` and every `@from` symbol-reference attribute (e.g. a `composite`'s
  /// `decomposition`), nested in arrays and dictionaries too. Attributes kept as opaque text are
  /// left alone. Throws hhlo::Error when `@from` does not exist, or `to` is empty or taken.
  void rename_func(std::string_view from, std::string to);
  /// Removes the private functions at positions `first` and after in funcs() that nothing in
  /// the module refers to (a `func.call` callee, a symbol reference such as a `composite`'s
  /// `decomposition`, nested in arrays and dictionaries), until none is left (a function only
  /// removed ones referred to goes too). Public functions stay. Returns how many were removed.
  /// For transformations that trace into a region they then drop (ad::vmap of a traced
  /// function): the functions that region's ops made are not left behind. Never throws.
  std::size_t erase_unreferenced_funcs(std::size_t first);
  /// The module's symbol name (`module @jit_f`); empty by default (printed `module {`).
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  /// Module attributes (`module attributes {mhlo.num_partitions = 1 : i32}`); empty by default.
  const std::vector<NamedAttr>& attrs() const { return attrs_; }
  /// Sets (or replaces) module attribute `attr.name`.
  void set_attr(NamedAttr attr);
  /// Adds a device mesh, printed as the Shardy op `sdy.mesh @name = <["x"=4]>` before the
  /// functions; shardings (ShardingAttr) name it. Throws ShardingError for an invalid mesh
  /// (Mesh::validate) and hhlo::Error when `name` is empty or taken.
  void add_mesh(std::string name, Mesh mesh);
  /// The meshes in the order added; nullptr from find_mesh when there is none of that name.
  const std::vector<std::pair<std::string, Mesh>>& meshes() const { return meshes_; }
  const Mesh* find_mesh(std::string_view name) const;

 private:
  // Stable identity across moves (what Func::same_module compares), holding the current owner
  // (what Func::module returns; the move operations update it). Every other member is in
  // detail::ModuleContents, moved as one.
  std::unique_ptr<Module*> id_;
};

}  // namespace hhlo

/// Values hash by (function, id), so they can key unordered containers (e.g. cotangent maps).
template <>
struct std::hash<hhlo::Value> {
  size_t operator()(const hhlo::Value& v) const noexcept {
    return std::hash<const void*>()(v.valid() ? &v.func() : nullptr) * 31 + v.id();
  }
};
