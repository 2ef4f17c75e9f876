// `hhlo run -i NAME=FILE` (tools/hhlo/run_npz.h, issue 44): a spec is split after a complete
// pytree path, so a jax.export input whose dict key holds '=' or ']' (args[0]['a=b']) is given by
// its name; the names are matched to the program's arguments before any file is read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/safetensors.h"
#include "run_npz.h"

namespace hhlo::cli {
namespace {

using ::testing::HasSubstr;

/// "NAME|FILE" of the split, or "(none)".
std::string split(const std::string& spec) {
  std::optional<NamedInput> s = split_named_input(spec);
  return s ? s->name + "|" + s->file : "(none)";
}

TEST(NamedInput, ASpecIsSplitAfterACompletePytreePath) {
  EXPECT_EQ(split("x=a.npy"), "x|a.npy");
  EXPECT_EQ(split("arg0=/tmp/x=1.npy"), "arg0|/tmp/x=1.npy");  // the file may hold '='
  EXPECT_EQ(split("args[0]['a=b']=x.npy"), "args[0]['a=b']|x.npy");
  EXPECT_EQ(split("args[0]['c]d']=y=z.npy"), "args[0]['c]d']|y=z.npy");
  EXPECT_EQ(split("args[0][\"it's\"]=q.npy"), "args[0][\"it's\"]|q.npy");
  EXPECT_EQ(split("args[0]['a\\'=b']=f.npy"), "args[0]['a\\'=b']|f.npy");  // repr's escape
  EXPECT_EQ(split("kwargs['k'][1]['=']=f.npy"), "kwargs['k'][1]['=']|f.npy");
  EXPECT_EQ(split("O'Brien=x.npy"), "O'Brien|x.npy");  // quotes count only inside brackets
  EXPECT_EQ(split("=x.npy"), "|x.npy");
  // No '=' after a complete path: a file.
  EXPECT_EQ(split("/tmp/plain.npy"), "(none)");
  EXPECT_EQ(split("args[0]['a=b'"), "(none)");
  EXPECT_EQ(split("args[0]['a=b]=x.npy"), "(none)");
}

TEST(NamedInput, NamesAreMatchedToTheArgumentsInTheirOrder) {
  IoNames names;
  names.args = {"args[0]['a=b']", "args[0]['c]d']"};
  EXPECT_EQ(match_named_inputs({"args[0]['c]d']=c.npy", "args[0]['a=b']=a.npy"}, names),
            (std::vector<InputSource>{{"a.npy", {}}, {"c.npy", {}}}));
  EXPECT_EQ(match_named_inputs({"arg1=c.npy", "arg0=a.npy"}, names),
            (std::vector<InputSource>{{"a.npy", {}}, {"c.npy", {}}}));
  try {
    match_named_inputs({"args[0]['a']=a.npy", "args[0]['c]d']=c.npy", "args[0]['c]d']=d.npy"},
                       names);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown [args[0]['a']]"));
    EXPECT_THAT(e.what(), HasSubstr("given twice [args[0]['c]d']]"));
    EXPECT_THAT(e.what(), HasSubstr("missing [args[0]['a=b']]"));
  }
  EXPECT_THROW(match_named_inputs({"args[0]['a=b']=a.npy", "plain.npy"}, names), Error);
}

TEST(NamedInput, ASafetensorsKeyIsThePathBelowJoinedWithDots) {
  EXPECT_EQ(safetensors_key("['dense']['kernel']"), "dense.kernel");
  EXPECT_EQ(safetensors_key("['layers'][1]['w']"), "layers.1.w");
  EXPECT_EQ(safetensors_key("[0]"), "0");
  EXPECT_EQ(safetensors_key(".h['x']"), "h.x");  // a namedtuple field, as JAX names it
  EXPECT_EQ(safetensors_key("[\"it's\"]['a\\'b']"), "it's.a'b");  // repr's quotes and escapes
  EXPECT_EQ(safetensors_key(""), std::nullopt);
  EXPECT_EQ(safetensors_key("'x']"), std::nullopt);
  EXPECT_EQ(safetensors_key("['x'"), std::nullopt);
  EXPECT_EQ(safetensors_key("[x]"), std::nullopt);
  EXPECT_EQ(safetensors_key("[]"), std::nullopt);
  EXPECT_EQ(safetensors_key("..x"), std::nullopt);
}

TEST(NamedInput, ASafetensorsFileBindsEveryArgumentUnderItsPath) {
  IoNames names;
  names.args = {"args[0]['dense']['bias']", "args[0]['dense']['kernel']",
                "args[0]['layers'][1]['w']", "args[1]"};
  EXPECT_EQ(match_named_inputs({"args[1]=x.npy", "args[0]=p.safetensors"}, names),
            (std::vector<InputSource>{{"p.safetensors", "dense.bias"},
                                      {"p.safetensors", "dense.kernel"},
                                      {"p.safetensors", "layers.1.w"},
                                      {"x.npy", {}}}));
  EXPECT_EQ(
      match_named_inputs(
          {"args[1]=x.npy", "args[0]['dense']=d.safetensors", "args[0]['layers'][1]['w']=w.npy"},
          names),
      (std::vector<InputSource>{
          {"d.safetensors", "bias"}, {"d.safetensors", "kernel"}, {"w.npy", {}}, {"x.npy", {}}}));
  EXPECT_EQ(match_named_inputs({"args=all.safetensors"}, names)[3],
            (InputSource{"all.safetensors", "1"}));
  auto message = [&](std::vector<std::string> specs) {
    try {
      match_named_inputs(specs, names);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  // A prefix that is no complete path ("arg" of "args[0]...") or a path with nothing below it
  // binds nothing: unknown.
  EXPECT_THAT(message({"arg=p.safetensors", "args[0]['de']=q.safetensors", "args[1]=x.npy"}),
              HasSubstr("unknown [arg, args[0]['de']]"));
  EXPECT_THAT(message({"args[0]=p.safetensors", "args[0]['dense']['bias']=b.npy", "args[1]=x.npy"}),
              HasSubstr("given twice [args[0]['dense']['bias']]"));
  EXPECT_THAT(message({"args[0]['dense']=p.safetensors", "args[1]=x.npy"}),
              HasSubstr("missing [args[0]['layers'][1]['w']]"));
  names.args.push_back("args[0]['layers.1']['w']");  // the same key as ['layers'][1]['w']
  EXPECT_THAT(message({"args=p.safetensors"}),
              HasSubstr("the arguments args[0]['layers'][1]['w'] and args[0]['layers.1']['w'] "
                        "under 'args' both take the tensor '0.layers.1.w'"));
}

TEST(NamedInput, OneSafetensorsFileBoundUnderTwoPathsGivesEachItsTensors) {
  auto dir = std::filesystem::temp_directory_path() / "hhlo_named_input_safetensors";
  std::filesystem::create_directories(dir);
  std::string st = (dir / "p.safetensors").string(), npy = (dir / "x.npy").string();
  Array w = Array::from<float>({2}, {1.5f, -2.0f}), x = Array::from<int32_t>({1}, {7});
  write_safetensors(st, {{"w", w}});
  write_npy(npy, x);
  IoNames names;
  names.args = {"args[0]['w']", "args[1]['w']", "args[2]"};
  Inputs in = read_inputs({"args[0]=" + st, "args[1]=" + st, "args[2]=" + npy},
                          [&]() -> const IoNames& { return names; });
  ASSERT_EQ(in.arrays.size(), 3u);
  EXPECT_EQ(in.arrays[0], w);  // tied: the same tensor twice
  EXPECT_EQ(in.arrays[1], w);
  EXPECT_EQ(in.arrays[2], x);
  EXPECT_EQ(in.labels[1], "args[1]['w']=" + st + ":w");
  std::filesystem::remove_all(dir);
}

TEST(NamedInput, OutputKeysAreTheResultPathsJoinedWithDots) {
  EXPECT_EQ(output_keys({"result['params']['w']", "result['loss']"}, {"params_w", "loss"}),
            (std::vector<std::string>{"params.w", "loss"}));
  EXPECT_EQ(output_keys({"result[0]", "result[1]"}, {"out0", "out1"}),
            (std::vector<std::string>{"0", "1"}));
  // A result with no path below "result", or names that are no pytree paths: the stems.
  EXPECT_EQ(output_keys({"result"}, {"out0"}), (std::vector<std::string>{"out0"}));
  EXPECT_EQ(output_keys({"out0", "out1"}, {"out0", "out1"}),
            (std::vector<std::string>{"out0", "out1"}));
  EXPECT_EQ(output_keys({}, {"out0"}), (std::vector<std::string>{"out0"}));
}

}  // namespace
}  // namespace hhlo::cli
