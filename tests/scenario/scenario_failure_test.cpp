// Failures inside a scenario are visible: an app whose loads or jobs fail shows it in its row and in the
// JSON, and `npusim scenario` exits non-zero when an app approved to load never completed a request.
// Also the case that first showed the problem: a foreground 3B chat with 128-token prompts beside the
// camera, whose single 128-token prefill job needed more command-buffer space than the driver has
// (its every submission was refused, silently); the prompt now runs in chunks and completes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/run_npusim.h"
#include "scenario_support.h"

namespace npu::scenario {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string chat_scenario(const std::string& model, uint32_t prompt, double duration_s) {
  return R"({"name": "chat", "seed": 1, "duration_s": )" + std::to_string(duration_s) +
         R"(, "hardware": {"config": ")" NPUSIM_SOURCE_DIR R"(/configs/npu/default.json"},
  "apps": [
    {"name": "camera", "uid": 10001, "importance": "FOREGROUND", "model": "vision-small",
     "workload": {"type": "periodic", "period_ms": 33.333333, "deadline_ms": 33.333333}},
    {"name": "chat", "uid": 10002, "importance": "FOREGROUND", "model": ")" +
         model + R"(",
     "workload": {"type": "llm", "prefill_tokens": )" +
         std::to_string(prompt) + R"(, "decode_tokens": 8, "think_ms": 20}}]})";
}

// Measured (default policy, 4 s): the chat completes sessions of 4 prefill chunks + 8 tokens (about 2 s
// each beside the camera, attention included) and the
// camera keeps every frame.
TEST(ScenarioFailure, ForegroundChat3bWith128TokenPromptsCompletesBesideTheCamera) {
  auto s = load_scenario(write_file("chat3b.json", chat_scenario("decoder-3b", 128, 4)));
  ASSERT_TRUE(s.ok()) << s.error();
  RunOptions o;
  o.policy = "default";
  const RunResult r = run_checked(*s, o);  // no app error
  const Metrics m = compute_metrics(r, {});
  const AppMetrics* chat = m.app("chat");
  const AppMetrics* cam = m.app("camera");
  ASSERT_TRUE(chat && cam);
  EXPECT_GE(chat->completed, 1u);
  EXPECT_EQ(chat->loads, 1u) << "loaded once, not over and over";
  EXPECT_EQ(chat->errors, 0u);
  EXPECT_EQ(cam->missed, 0u);
  std::fputs(app_table(m).c_str(), stdout);
}

// A prompt chunk too large for the driver's command-buffer space is refused before the run, with the
// knob to turn.
TEST(ScenarioFailure, OversizedPrefillChunkIsAnErrorNamingTheKnob) {
  const std::string text = chat_scenario("decoder-3b", 128, 1);
  const std::string chunked = text.substr(0, text.rfind("\"decode_tokens\"")) +
                              "\"prefill_chunk_tokens\": 128, " +
                              text.substr(text.rfind("\"decode_tokens\""));
  auto s = load_scenario(write_file("chat3b_chunk.json", chunked));
  ASSERT_TRUE(s.ok()) << s.error();
  RunOptions o;
  o.policy = "default";
  auto r = run_forked(*s, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("app \"chat\""), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("driver.kernel_reserved_bytes"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("prefill_chunk_tokens"), std::string::npos) << r.error();
}

// decoder-7b (6.6 GB of int8 weights) beside the camera on the default part (6 GiB weight memory): the
// manager approves it (its size class fits), the load cannot, the app says why once and stops asking;
// the row, the JSON and the exit status show it.
TEST(ScenarioFailure, ModelThatCannotFitIsReportedAndExitsNonZero) {
  const std::string path = write_file("chat7b.json", chat_scenario("decoder-7b", 32, 0.2));
  const std::string json_path = ::testing::TempDir() + "chat7b_metrics.json";
  const auto run = npu::test::npusim("scenario " + path + " --policy default --json " + json_path);
  EXPECT_NE(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("can never fit"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("app \"chat\" (policy default) was approved 1 time(s) but completed no request"),
            std::string::npos)
      << run.output;
  std::ifstream in(json_path);
  ASSERT_TRUE(in.good()) << "the metrics are written before the exit status says it failed";
  const auto j = nlohmann::json::parse(in);
  const auto& apps = j["runs"][0]["apps"];
  ASSERT_EQ(apps.size(), 2u);
  EXPECT_EQ(apps[1]["name"], "chat");
  EXPECT_EQ(apps[1]["errors"], 1);
  EXPECT_EQ(apps[1]["approvals"], 1);
  EXPECT_EQ(apps[1]["completed"], 0);
  EXPECT_NE(apps[1]["first_error"].get<std::string>().find("can never fit the NPU's 6144 MiB weight memory"),
            std::string::npos);
  EXPECT_EQ(apps[0]["errors"], 0);
}

// A healthy run exits 0.
TEST(ScenarioFailure, HealthyScenarioExitsZero) {
  const auto run = npu::test::npusim(std::string("scenario ") + NPUSIM_SOURCE_DIR +
                                     "/configs/scenarios/camera_llm.json --policy default --scale 0.02");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("failed"), std::string::npos) << "the failed column is there";
}

}  // namespace
}  // namespace npu::scenario
