// MLTS-style crash and stress testing of the whole stack (`npusim stress`). Every case runs in a child
// process under a wall-time watchdog, so what the case does to its process cannot take the runner down,
// and each run is classified as MLTS's crash tests do:
//   SUCCESS  the child exited 0 and reported every check held;
//   FAILURE  it exited non-zero, or a check failed, or it printed no readable report;
//   HANG     the watchdog killed it at the wall-time limit;
//   CRASH    a signal ended it.
// The cases (stress_cases) load and run small quantised models through the HAL on the simulated NPU and
// compare every output with the CPU reference device; they also count what the driver holds at the end
// (contexts, buffer objects, unsignalled fences, device memory) so a leak is a failed check. Sizes are
// multiplied by StressOptions::scale.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/enum_table.h"
#include "npu/common/result.h"

namespace npu::mlts {

enum class Verdict { SUCCESS, FAILURE, HANG, CRASH };
inline constexpr enums::Entry<Verdict> kVerdictNames[] = {{Verdict::SUCCESS, "SUCCESS"},
                                                          {Verdict::FAILURE, "FAILURE"},
                                                          {Verdict::HANG, "HANG"},
                                                          {Verdict::CRASH, "CRASH"}};
constexpr const auto& enum_table(Verdict) { return kVerdictNames; }
inline const char* to_string(Verdict v) { return enums::to_string(v); }

struct StressOptions {
  double scale = 1;  // multiplies every case's iteration counts (at least one of each)
  uint64_t seed = 1;
  std::string hw;                 // hardware config JSON
  std::vector<std::string> sets;  // overrides path=value
  double soak_s = 0.5;            // simulated seconds of the soak case
};

struct StressCase {
  std::string name;
  std::string description;
  bool test_only = false;  // a deliberate hang, crash or failure that checks the classifier itself
};

// Every case in run order; the test-only ones only with `with_test_cases`.
std::vector<StressCase> stress_cases(bool with_test_cases);
// The test-only cases are selectable when the environment has NPUSIM_STRESS_TEST_CASES=1.
bool stress_test_cases_enabled();

struct Check {
  std::string name;
  bool passed = false;
  std::string detail;  // the figures behind it
};

// What a case found, printed by the child as JSON on stdout.
struct CaseReport {
  std::string name;
  std::vector<Check> checks;
  nlohmann::json figures = nlohmann::json::object();
  bool passed() const;
  nlohmann::json to_json() const;
  static Result<CaseReport> from_json(const nlohmann::json& j);
};

// Runs case `name` in this process, which it may build its one System in (or hang, or crash). An error
// when the case is unknown or cannot be set up.
Result<CaseReport> run_stress_case(const std::string& name, const StressOptions& options);

// A child process run to completion or to its wall-time limit (then killed with SIGKILL).
struct ChildRun {
  bool timed_out = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it (other than the watchdog's)
  std::string out, err;
  double wall_s = 0;
  std::string spawn_error;  // it could not be started
};
ChildRun run_child(const std::vector<std::string>& argv, double timeout_s);

struct CaseOutcome {
  std::string name;
  Verdict verdict = Verdict::FAILURE;
  std::string why;  // one line: the failed checks, the signal, the limit
  double wall_s = 0;
  std::optional<CaseReport> report;
};
// The verdict on a child that was to print a CaseReport as JSON on stdout.
CaseOutcome classify(const std::string& name, const ChildRun& run, double timeout_s);

struct StressRun {
  StressOptions options;
  double timeout_s = 0;
  std::vector<CaseOutcome> cases;
  double wall_s = 0;
  bool all_success() const;
};

// The text summary `npusim stress` prints, the JSON and the self-contained HTML page of --out.
std::string stress_table(const StressRun& run);
nlohmann::json stress_json(const StressRun& run);
std::string stress_html(const StressRun& run);

}  // namespace npu::mlts
