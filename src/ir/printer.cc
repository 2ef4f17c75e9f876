// The generic MLIR printer.
#include "hhlo/ir/printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "attribute_text.h"

namespace hhlo {
namespace {

class FuncPrinter {
 public:
  FuncPrinter(const Func& f, const PrintOptions& o, std::string& out) : f_(f), o_(o), out_(out) {}

  void print() {
    out_ += "  func.func ";
    if (f_.visibility() == Visibility::private_) out_ += "private ";
    out_ += detail::symbol_ref(f_.name()) + "(";
    for (size_t i = 0; i < f_.args().size(); ++i) {
      out_ += (i ? ", " : "") + name_arg(f_.args()[i]) + ": " + f_.arg_types()[i].to_string();
      const auto& attrs = f_.arg_attrs(i);
      for (size_t k = 0; k < attrs.size(); ++k)
        out_ += (k ? ", " : " {") + attrs[k].name + " = " + to_string(attrs[k].value);
      if (!attrs.empty()) out_ += "}";
    }
    out_ += ") -> ";
    const auto& rt = f_.result_types();
    bool result_attrs = false;
    for (size_t i = 0; i < rt.size(); ++i) result_attrs |= !f_.result_attrs(i).empty();
    if (rt.size() == 1 && !result_attrs) {
      out_ += rt[0].to_string();
    } else {
      out_ += "(";
      for (size_t i = 0; i < rt.size(); ++i) {
        out_ += (i ? ", " : "") + rt[i].to_string();
        if (!f_.result_attrs(i).empty()) out_ += " " + detail::attr_dict(f_.result_attrs(i));
      }
      out_ += ")";
    }
    if (!f_.attrs().empty()) out_ += " attributes " + detail::attr_dict(f_.attrs());
    out_ += " {\n";
    print_ops(f_.body(), 2);
    out_ += "  }\n";
  }

 private:
  std::string name_arg(Value v) {
    std::string n = fmt::format("%arg{}", next_arg_++);
    names_[v.id()] = n;
    return n;
  }

  const std::string& use(Value v) {
    auto it = names_.find(v.id());
    if (it == names_.end()) throw Error("to_mlir: use of a value before its definition");
    return it->second;
  }

  void print_ops(const Block& b, int depth) {
    for (const auto& op : b.ops()) print_op(*op, depth);
  }

  void indent(int depth) { out_.append(static_cast<size_t>(depth) * 2, ' '); }

  void print_op(const Op& op, int depth) {
    indent(depth);
    const auto& res = op.results();
    if (!res.empty()) {
      std::string base = fmt::format("%{}", next_result_++);
      if (res.size() == 1) {
        names_[res[0].id()] = base;
      } else {
        for (size_t i = 0; i < res.size(); ++i) names_[res[i].id()] = fmt::format("{}#{}", base, i);
        base += fmt::format(":{}", res.size());
      }
      out_ += base + " = ";
    }
    out_ += '"';
    out_ += op.name();
    out_ += "\"(";
    for (size_t i = 0; i < op.operands().size(); ++i) {
      if (i) out_ += ", ";
      out_ += use(op.operands()[i]);
    }
    out_ += ")";
    if (!op.regions().empty()) {
      out_ += " (";
      for (size_t r = 0; r < op.regions().size(); ++r) {
        const Block& blk = *op.regions()[r];
        out_ += r ? ", {\n" : "{\n";
        indent(depth + 1);
        out_ += "^bb0(";
        for (size_t i = 0; i < blk.args().size(); ++i)
          out_ +=
              (i ? ", " : "") + name_arg(blk.args()[i]) + ": " + blk.args()[i].type().to_string();
        out_ += "):\n";
        print_ops(blk, depth + 2);
        indent(depth);
        out_ += "}";
      }
      out_ += ")";
    }
    if (!op.attrs().empty()) {
      std::vector<const NamedAttr*> attrs;
      for (const auto& a : op.attrs()) attrs.push_back(&a);
      std::sort(attrs.begin(), attrs.end(),
                [](const NamedAttr* a, const NamedAttr* b) { return a->name < b->name; });
      out_ += " {";
      for (size_t i = 0; i < attrs.size(); ++i)
        out_ += (i ? ", " : "") + attrs[i]->name + " = " + to_string(attrs[i]->value);
      out_ += "}";
    }
    out_ += " : (";
    for (size_t i = 0; i < op.operands().size(); ++i) {
      if (i) out_ += ", ";
      out_ += op.operands()[i].type().to_string();
    }
    out_ += ") -> ";
    if (res.size() == 1) {
      out_ += res[0].type().to_string();
    } else {
      out_ += "(";
      for (size_t i = 0; i < res.size(); ++i) out_ += (i ? ", " : "") + res[i].type().to_string();
      out_ += ")";
    }
    if (o_.locations) {
      const Location& l = op.loc();
      if (!l.text.empty())
        out_ += " loc(" + l.text + ")";
      else if (l.file.empty())
        out_ += " loc(unknown)";
      else {
        // Ops of one function mostly come from one file: escape each file name once.
        if (l.file != loc_file_) {
          loc_file_ = l.file;
          loc_file_escaped_ = detail::escape_string(l.file);
        }
        fmt::format_to(std::back_inserter(out_), " loc({}:{}:{})", loc_file_escaped_, l.line,
                       l.column);
      }
    }
    out_ += "\n";
  }

  const Func& f_;
  const PrintOptions& o_;
  std::string& out_;
  std::unordered_map<uint32_t, std::string> names_;
  std::string loc_file_, loc_file_escaped_;
  int next_arg_ = 0, next_result_ = 0;
};

}  // namespace

std::string to_mlir(const Module& module, const PrintOptions& options) {
  std::string out = "module ";
  if (!module.name().empty()) out += detail::symbol_ref(module.name()) + " ";
  if (!module.attrs().empty()) out += "attributes " + detail::attr_dict(module.attrs()) + " ";
  out += "{\n";
  for (const auto& [name, mesh] : module.meshes())
    out += "  sdy.mesh " + detail::symbol_ref(name) + " = " + mesh.to_string() + "\n";
  for (const auto& f : module.funcs()) {
    if (!f->returned())
      throw Error(fmt::format("to_mlir: function @{} has no return; call ret() on it", f->name()));
    FuncPrinter(*f, options, out).print();
  }
  out += "}\n";
  return out;
}

}  // namespace hhlo
