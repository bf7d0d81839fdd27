// A word as a POSIX shell reads it back unchanged: as is when it holds only characters no shell treats
// specially, else in single quotes (an embedded ' written as '\''). For the command lines npusim records
// (a run directory's command.txt, a sweep row's reproducing command).
#pragma once

#include <string>

namespace npu {

inline std::string shell_quote(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@,+") ==
          std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace npu
