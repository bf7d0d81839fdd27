// A subcommand of npusim that lives in its own file (tools/cmd_<name>.cpp): its registration function
// adds its options to the CLI and returns what to run when the user chose it. npusim.cpp keeps the list,
// dispatches, and prints help generically over every registered subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace npusim {

struct Subcommand {
  CLI::App* cli = nullptr;
  std::function<int()> run;  // the exit status
};

Subcommand register_scenario_command(CLI::App& app);
Subcommand register_sweep_command(CLI::App& app);
Subcommand register_measure_command(CLI::App& app);
Subcommand register_stress_command(CLI::App& app);
Subcommand register_vp_command(CLI::App& app);
Subcommand register_program_command(CLI::App& app);
Subcommand register_run_command(CLI::App& app);

}  // namespace npusim
