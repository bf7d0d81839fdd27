// docs/sweep.md's measured study tables (configs/sweeps/study.json) stay true: every documented row's
// area is the docs/area.md arithmetic for its design, and a few rows, rerun by `npusim measure` with the
// study's settings, give the documented latency, energy and area digit for digit (simulated results are
// deterministic). When the simulator changes what these give, rerun the study and regenerate the tables
// with the commands in docs/sweep.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/run_npusim.h"

namespace {

using nlohmann::json;
using npu::test::npusim;

const std::string kRoot = NPUSIM_SOURCE_DIR;

// One documented front row: its workload, and each column's text by the column's name.
struct DocRow {
  std::string workload;
  std::map<std::string, std::string> cells;
};

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line.substr(1));
  std::string cell;
  while (std::getline(ss, cell, '|')) {
    const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
    out.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
  }
  return out;
}

// The tables after "## A study" up to the next "## ": each "**workload**: ..." line, then its table.
std::vector<DocRow> study_rows() {
  std::ifstream in(kRoot + "/docs/sweep.md");
  std::string line, workload;
  bool in_study = false;
  std::vector<std::string> header;
  std::vector<DocRow> rows;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_study = line.rfind("## A study", 0) == 0;
    if (!in_study) continue;
    if (line.rfind("**", 0) == 0 && line.find("designs on the front") != std::string::npos) {
      workload = line.substr(2, line.find("**", 2) - 2);
      header.clear();
    } else if (line.rfind("| point |", 0) == 0) {
      header = split_cells(line);
    } else if (!header.empty() && line.rfind("|---", 0) != 0 && line.rfind("| ", 0) == 0) {
      const auto cells = split_cells(line);
      if (cells.size() != header.size()) continue;
      DocRow r{workload, {}};
      for (size_t i = 0; i < cells.size(); ++i) r.cells[header[i]] = cells[i];
      rows.push_back(std::move(r));
    } else if (line.empty() && !header.empty() && !rows.empty() && rows.back().workload == workload) {
      header.clear();
    }
  }
  return rows;
}

std::string g5(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.5g", v);
  return b;
}

json study() {
  std::ifstream in(kRoot + "/configs/sweeps/study.json");
  return json::parse(in);
}

TEST(SweepStudy, DocsHoldTheFourWorkloadsFronts) {
  const auto rows = study_rows();
  std::map<std::string, size_t> per;
  for (const auto& r : rows) ++per[r.workload];
  for (const auto& w : study()["workloads"]) EXPECT_GT(per[w["name"].get<std::string>()], 0u) << w;
  EXPECT_EQ(per.size(), study()["workloads"].size());
}

// docs/area.md's formula with its 7 nm figures (the study's base, configs/npu/default.json: 64 fp32
// MACs and 32 B/cycle of DMA per channel) for every documented row.
TEST(SweepStudy, DocumentedAreasAreTheAreaArithmetic) {
  const auto rows = study_rows();
  ASSERT_FALSE(rows.empty());
  for (const auto& r : rows) {
    const double ch = std::stod(r.cells.at("npu.channels")),
                 rows_ = std::stod(r.cells.at("npu.channel.array.rows")),
                 cols = std::stod(r.cells.at("npu.channel.array.cols")),
                 kib = std::stod(r.cells.at("npu.channel.sram.kib")),
                 bw = std::stod(r.cells.at("npu.dram.bandwidth_gbps"));
    const double area =
        ch * (rows_ * cols * 158e-6 + kib / 1024 * 0.463 + 64 * 4307e-6 + 2 * 1 * 0.0124) + bw * 0.123;
    EXPECT_EQ(r.cells.at("area_mm2"), g5(area)) << r.workload << " point " << r.cells.at("point");
  }
}

// Reruns documented rows with the study's settings and compares them digit for digit.
void expect_row_reproduces(const std::string& workload, const std::string& point) {
  const DocRow* row = nullptr;
  const auto rows = study_rows();
  for (const auto& r : rows)
    if (r.workload == workload && r.cells.at("point") == point) row = &r;
  ASSERT_NE(row, nullptr) << workload << " point " << point
                          << " is no longer in docs/sweep.md's tables: pick another row here";
  const json s = study();
  std::string args = "measure --hw " + kRoot + "/configs/sweeps/" + s["base"].get<std::string>();
  for (const auto& set : s["set"]) args += " --set " + set.get<std::string>();
  for (const auto& [name, value] : row->cells)
    if (name.rfind("npu.", 0) == 0) args += " --set " + name + "=" + value;
  for (const auto& w : s["workloads"]) {
    if (w["name"] != workload) continue;
    if (w.contains("model")) {
      args += " --model " + w["model"].get<std::string>() + " --iterations " +
              std::to_string(w.value("iterations", 3)) + " --seed " + std::to_string(w.value("seed", 1));
      if (w.value("mode", "") == "timing") args += " --timing-only";
    } else {
      args += " --scenario " + kRoot + "/configs/sweeps/" + w["scenario"].get<std::string>() + " --scale " +
              g5(w["scale"].get<double>());
    }
  }
  auto r = npusim(args + " --json");
  ASSERT_EQ(r.status, 0) << args << "\n" << r.output;
  const json m = json::parse(r.output)["metrics"];
  for (const char* metric : {"latency_p50_us", "energy_mj", "area_mm2"})
    EXPECT_EQ(row->cells.at(metric), g5(m[metric].get<double>()))
        << workload << " point " << point << " " << metric << "\n"
        << args;
}

TEST(SweepStudy, DocumentedMobileNetRowReproduces) { expect_row_reproduces("mobilenet_v2", "90"); }

TEST(SweepStudy, DocumentedResNetRowReproduces) { expect_row_reproduces("resnet18", "93"); }

}  // namespace
