// Sweep results databases (npusim sweep --db D --export / --report): the bytes are the SQLite file,
// opened read-only as --export does, its rows and CSV read. Properties: an error naming the file or
// the table, or rows and a CSV, never a crash or an exception (a crafted meta table threw).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npu/sweep/database.h"
#include "scratch_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path =
      npu::fuzz::scratch_file("results.sqlite", std::string_view(reinterpret_cast<const char*>(data), size));
  auto db = npu::sweep::Database::open(path, {});
  if (!db) return 0;
  auto rows = db->rows();
  if (!rows) return 0;
  auto csv = db->csv();
  if (csv && csv->empty()) std::abort();  // the header at least
  return 0;
}
