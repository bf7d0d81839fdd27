// A run directory (`npusim run --out D`, `npusim scenario --out D`) written all-or-nothing: every file
// goes first into a hidden sibling folder (.D.partial-PID); only when the command has written them all
// does commit() remove from D the files a previous run of the command left there (the names the command
// can write, so none of them survives from another run) and rename the new ones in. A command that fails
// or is interrupted before commit() leaves D as it was and removes the sibling. Files in D that the
// command never writes (a user's notes) are kept. Also: the command line that made the directory,
// recorded in it (command.txt) with the version.
#pragma once

#include <string>
#include <vector>

#include "npu/common/result.h"

namespace npu::tools {

// The process's command line, shell-quoted (set once by main).
void set_command_line(int argc, char** argv);
const std::string& command_line();

class StagedDirectory {
 public:
  // `names`: every file the command can write into the directory. Errors name the folder and the reason.
  static Result<StagedDirectory> create(const std::string& final_dir, std::vector<std::string> names);
  StagedDirectory(StagedDirectory&& o) noexcept;
  StagedDirectory& operator=(StagedDirectory&&) = delete;
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;
  ~StagedDirectory();  // removes the staging folder unless committed

  // Where to write file `name` now.
  std::string staged(const std::string& name) const;
  // The path a user is shown for `path`: a staged file as its final name, anything else as is.
  std::string shown(const std::string& path) const;
  // Writes command.txt (version and command line), then moves every staged file into the final folder.
  Result<void> commit();

 private:
  StagedDirectory(std::string final_dir, std::string staging, std::vector<std::string> names)
      : final_(std::move(final_dir)), staging_(std::move(staging)), names_(std::move(names)) {}
  std::string final_, staging_;
  std::vector<std::string> names_;
};

}  // namespace npu::tools
