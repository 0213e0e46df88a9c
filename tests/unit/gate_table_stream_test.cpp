// `rtgate gate` and `rtgate compare` stream their output (a 10,000-case table or JSON is
// 50-170 MB): what they write must be what the in-memory renderings hold, byte for byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "exporters/gate_table.h"
#include "gate/pair/compare.h"
#include "tests/unit/gate_sim.h"

namespace rtgate {
namespace {

std::string written(const std::function<void(std::FILE*)>& write) {
  std::FILE* f = std::tmpfile();
  write(f);
  std::string out(static_cast<std::size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  const std::size_t n = std::fread(out.data(), 1, out.size(), f);
  std::fclose(f);
  out.resize(n);
  return out;
}

gate::GateVerdict lab_gate() {
  std::mt19937_64 rng(11);
  gate::sim::Layout l;
  l.locks = 3;
  const RunReport base = gate::sim::side(rng, l, 5, {});
  // A regressed metric, so that reasons and evidence lines follow the table.
  const RunReport cur = gate::sim::side(
      rng, l, 5, {},
      {.suite = "cyclic", .case_name = "cpu1", .metric = "wakeup_latency", .latency_factor = 3});
  return gate::compare(base, cur);
}

TEST(GateTableStream, TheStreamedJsonIsTheDocumentsIndentedText) {
  const gate::GateVerdict g = lab_gate();
  ASSERT_GT(g.suites.size(), 1u);
  EXPECT_EQ(written([&](std::FILE* f) { write_gate_json(g, f); }), gate_json(g).dump(2) + "\n");
  // And with nothing in it (no suites; a suite without metrics).
  gate::GateVerdict empty;
  EXPECT_EQ(written([&](std::FILE* f) { write_gate_json(empty, f); }),
            gate_json(empty).dump(2) + "\n");
  empty.suites.push_back({.suite = "cyclic"});
  EXPECT_EQ(written([&](std::FILE* f) { write_gate_json(empty, f); }),
            gate_json(empty).dump(2) + "\n");
}

TEST(GateTableStream, TheStreamedTableIsTheRenderedTable) {
  const gate::GateVerdict g = lab_gate();
  for (const TableFormat format : {TableFormat::kTable, TableFormat::kMarkdown}) {
    const std::string table = render_gate_table(g, format);
    EXPECT_NE(table.find("regressed"), std::string::npos);
    EXPECT_EQ(written([&](std::FILE* f) { write_gate_table(g, format, f); }), table);
  }
}

}  // namespace
}  // namespace rtgate
