#include "sim/scenario/replay_line.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(ReplayLine, CarriesEveryFlagOfTheRun) {
  EXPECT_EQ(replay_command({"a/b.json"}), "qdt replay a/b.json");
  EXPECT_EQ(replay_command({"a/b.json", impl::Variant::skip_probe}), "qdt replay a/b.json --variant skip-probe");
  EXPECT_EQ(replay_command({"a/b.json", impl::Variant::skip_probe, "off", StorageEngineKind::sqlite,
                            " --schedule pct --pct-depth 3"}),
            "qdt replay a/b.json --variant skip-probe --cache off --schedule pct --pct-depth 3");
  EXPECT_EQ(replay_command({"a.json", impl::Variant::none, "", StorageEngineKind::postgres}),
            "qdt replay a.json --storage postgres");
}

// A path with a space, a quote or shell syntax pastes as one word that runs nothing.
TEST(ReplayLine, QuotesThePath) {
  EXPECT_EQ(replay_command({"/tmp/my out/it's.json", impl::Variant::skip_probe}),
            "qdt replay '/tmp/my out/it'\\''s.json' --variant skip-probe");
  EXPECT_EQ(replay_command({"$(touch x).json"}), "qdt replay '$(touch x).json'");
}

}  // namespace
}  // namespace qdt::sim
