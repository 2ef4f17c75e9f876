// Loading, reloading and unloading models of a running Server (hhlo/serve/server.h): explicit
// requests and repository polls, a new version replacing the old one while requests go on.
// Programs are StableHLO text written here; values derived by hand (x * 2, x * 3).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "hhlo/serve/server.h"

namespace hhlo::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string scale_program(float factor) {
  return "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %c = stablehlo.constant dense<" +
         std::to_string(factor) +
         "> : tensor<2xf32>\n"
         "  %0 = stablehlo.multiply %x, %c : tensor<2xf32>\n"
         "  return %0 : tensor<2xf32>\n}\n";
}

struct Repo {
  Repo()
      : path(fs::temp_directory_path() /
             ("hhlo-control-" + std::to_string(getpid()) + "-" + std::to_string(counter++))) {
    fs::remove_all(path);
  }
  ~Repo() { fs::remove_all(path); }
  void put(const std::string& model, int version, float factor) {
    fs::create_directories(path / model / std::to_string(version));
    std::ofstream(path / model / std::to_string(version) / "model.mlir") << scale_program(factor);
  }
  fs::path path;
  static inline int counter = 0;
};

/// The outcome of one inference of x = [1, 2] on `model`, waited for.
InferOutcome infer_once(Server& server, const std::string& model) {
  InferRequest r;
  r.inputs.push_back({"arg0", Array::from<float>({2}, {1, 2})});
  std::promise<InferOutcome> done;
  server.infer(model, "", std::move(r), [&](InferOutcome o) { done.set_value(std::move(o)); });
  return done.get_future().get();
}

std::vector<float> values(const InferOutcome& o) {
  if (!o.response) return {};
  return o.response->outputs.at(0).tensor.to_vector<float>();
}

TEST(ModelControl, ExplicitRequestsLoadReloadAndUnload) {
  Repo repo;
  repo.put("m", 1, 2);
  ServerOptions options;
  options.control = ModelControl::explicit_requests;
  Server server(options);
  server.load_repository(repo.path.string());
  EXPECT_FALSE(server.model_ready("m"));
  EXPECT_TRUE(server.ready());  // nothing was asked to be loaded
  ASSERT_TRUE(infer_once(server, "m").error);
  server.load_model("m");
  EXPECT_EQ(values(infer_once(server, "m")), (std::vector<float>{2, 4}));
  repo.put("m", 2, 3);
  server.load_model("m");  // the newest version replaces the first
  EXPECT_EQ(server.metadata("m").versions, (std::vector<std::string>{"2"}));
  EXPECT_EQ(values(infer_once(server, "m")), (std::vector<float>{3, 6}));
  server.unload_model("m");
  InferOutcome after = infer_once(server, "m");
  ASSERT_TRUE(after.error);
  EXPECT_EQ(after.error->status(), Status::unavailable);
  EXPECT_THAT(after.error->what(), HasSubstr("unloaded"));
  try {
    server.load_model("absent");
    FAIL() << "an absent model loaded";
  } catch (const ServeError& e) {
    EXPECT_EQ(e.status(), Status::not_found);
  }
}

TEST(ModelControl, ModeNoneRefusesLoadAndUnload) {
  Repo repo;
  repo.put("m", 1, 2);
  Server server;
  server.load_repository(repo.path.string());
  EXPECT_TRUE(server.model_ready("m"));
  try {
    server.unload_model("m");
    FAIL() << "unloaded in mode none";
  } catch (const ServeError& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument);
    EXPECT_THAT(e.what(), HasSubstr("model control mode is \"none\""));
  }
  EXPECT_THROW(server.load_model("m"), ServeError);
}

TEST(ModelControl, APollReloadsChangedModelsWhileRequestsGoOnAndDropsRemovedOnes) {
  Repo repo;
  repo.put("m", 1, 2);
  ServerOptions options;
  options.control = ModelControl::poll;
  Server server(options);
  server.load_repository(repo.path.string());
  EXPECT_EQ(server.poll_repository(), std::vector<std::string>{});  // nothing changed
  std::atomic<bool> stop{false};
  std::atomic<int> failed{0}, answered{0};
  std::thread load([&] {
    while (!stop) {
      InferOutcome o = infer_once(server, "m");
      if (o.error) ++failed;
      ++answered;
    }
  });
  repo.put("m", 2, 3);
  repo.put("n", 1, 5);
  std::vector<std::string> changed = server.poll_repository();
  stop = true;
  load.join();
  EXPECT_EQ(changed, (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(failed, 0) << "of " << answered << " requests during the reload";
  EXPECT_EQ(values(infer_once(server, "m")), (std::vector<float>{3, 6}));
  EXPECT_EQ(values(infer_once(server, "n")), (std::vector<float>{5, 10}));
  fs::remove_all(repo.path / "n");
  EXPECT_EQ(server.poll_repository(), std::vector<std::string>{"n"});
  InferOutcome gone = infer_once(server, "n");
  ASSERT_TRUE(gone.error);
  EXPECT_EQ(gone.error->status(), Status::not_found);
}

}  // namespace
}  // namespace hhlo::serve
