// `hhlo run -i NAME=FILE` (tools/hhlo/run_npz.h, issue 44): a spec is split after a complete
// pytree path, so a jax.export input whose dict key holds '=' or ']' (args[0]['a=b']) is given by
// its name; the names are matched to the program's arguments before any file is read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
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
            (std::vector<std::string>{"a.npy", "c.npy"}));
  EXPECT_EQ(match_named_inputs({"arg1=c.npy", "arg0=a.npy"}, names),
            (std::vector<std::string>{"a.npy", "c.npy"}));
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

}  // namespace
}  // namespace hhlo::cli
