#include "sim/campaign/campaign_journal.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/base/atomic_file.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kHash = "0123456789abcdef0123456789abcdef";

std::string fresh_dir() {
  std::string pattern = (fs::temp_directory_path() / "qdt-journal-XXXXXX").string();
  EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
  return pattern;
}

TEST(AtomicFile, WritesTheWholeTextAndLeavesNoTemporary) {
  const std::string dir = fresh_dir();
  const std::string path = dir + "/f.json";
  ASSERT_TRUE(write_file_atomically(path, "old\n"));
  ASSERT_TRUE(write_file_atomically(path, "new\n"));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "new\n");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1) << "the temporary file is renamed away";
  std::string error;
  EXPECT_FALSE(write_file_atomically(dir + "/no/such/folder/f.json", "x", &error));
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(CampaignJournal, PartsRoundTripWithTheCampaignsOptions) {
  CampaignOptions o;
  o.out_dir = fresh_dir();
  o.seeds = 7;
  o.first_seed = 3;
  o.profile = "retention";
  o.shard = "1/2";
  o.max_shrinks = 5;
  o.interleave = false;
  ASSERT_EQ(start_journal(o, impl::Variant::last_wins), std::nullopt);
  double now = 0;
  JournalWriter w(o.out_dir, 0, 1, [&] { return now; }, campaign_key(o, impl::Variant::last_wins, ""));
  json& d = w.delta();
  d["seeds_run"] = 2;
  d["seeds_done"] = json::array({json::array({"retention", 3}), json::array({"retention", 5})});
  d["seed_hashes"] = {"retention 3 " + kHash, "retention 5 " + kHash};
  d["failed"] = 1;
  d["failures"] = {{{"profile", "retention"}, {"seed", 5}, {"property", "p"}, {"detail", "d"}, {"file", "x.json"},
                     {"replay", "qdt replay x.json"}}};  // as add_file writes a shrunk failure: a file has its replay
  w.checkpoint(false);  // less than a second since the writer started: nothing written
  std::string error;
  std::optional<JournalState> s = read_journal(o.out_dir, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_TRUE(s->parts.empty());
  now = 1.5;
  w.checkpoint(false);
  w.checkpoint(true);  // an empty delta writes nothing
  s = read_journal(o.out_dir, &error);
  ASSERT_TRUE(s) << error;
  ASSERT_EQ(s->parts.size(), 1u);
  EXPECT_EQ(s->done, (std::set<std::pair<std::string, uint64_t>>{{"retention", 3}, {"retention", 5}}));
  EXPECT_EQ(s->failure_files, 1u);
  EXPECT_EQ(s->variant, impl::Variant::last_wins);
  EXPECT_EQ(s->options.seeds, 7u);
  EXPECT_EQ(s->options.first_seed, 3u);
  EXPECT_EQ(s->options.profile, "retention");
  EXPECT_EQ(s->options.shard, "1/2");
  EXPECT_EQ(s->options.max_shrinks, 5);
  EXPECT_EQ(s->options.interleave, std::optional<bool>(false));
  EXPECT_EQ(s->run, 0u);
  ASSERT_EQ(mark_run(o.out_dir, 1), std::nullopt);
  EXPECT_EQ(read_journal(o.out_dir, &error)->run, 1u);
  // A fresh campaign in the same folder starts a fresh journal.
  ASSERT_EQ(start_journal(o, impl::Variant::none), std::nullopt);
  EXPECT_TRUE(read_journal(o.out_dir, &error)->parts.empty());
  fs::remove_all(o.out_dir);
}

// The engine defines the campaign: journaled, and a journal without it
// (written before it was recorded) ran on SQLite.
TEST(CampaignJournal, RecordsTheEngineAndReadsAnOlderJournalAsSqlite) {
  CampaignOptions o;
  o.out_dir = fresh_dir();
  o.engine = StorageEngineKind::postgres;
  ASSERT_EQ(start_journal(o, impl::Variant::none), std::nullopt);
  std::string error;
  std::optional<JournalState> s = read_journal(o.out_dir, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->options.engine, StorageEngineKind::postgres);
  const std::string manifest = o.out_dir + "/journal/campaign.json";
  json m = json::parse(std::ifstream(manifest));
  EXPECT_EQ(m["engine"], "postgres");
  m.erase("engine");
  std::ofstream(manifest) << m.dump(2);
  EXPECT_FALSE(read_journal(o.out_dir, &error)) << "this format always records the engine";
  m["format"] = "qdt-campaign-journal-2";
  std::ofstream(manifest) << m.dump(2);
  s = read_journal(o.out_dir, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->options.engine, StorageEngineKind::sqlite);
  m["engine"] = "oracle";
  std::ofstream(manifest) << m.dump(2);
  EXPECT_FALSE(read_journal(o.out_dir, &error));
  EXPECT_NE(error.find("/engine"), std::string::npos) << error;
  fs::remove_all(o.out_dir);
}

TEST(CampaignJournal, NoJournalOrADamagedOneIsAnErrorNamingTheFile) {
  const std::string dir = fresh_dir();
  std::string error;
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find("journal/campaign.json: cannot open"), std::string::npos) << error;
  CampaignOptions o;
  o.out_dir = dir;
  ASSERT_EQ(start_journal(o, impl::Variant::none), std::nullopt);
  std::ofstream(dir + "/journal/part-r0000-w00-000000.json") << "{\"seeds_run\": 3, \"seeds_do";
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find("part-r0000-w00-000000.json"), std::string::npos) << error;
  std::ofstream(dir + "/journal/campaign.json") << "{\"format\": \"something else\"}";
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find("not a campaign this qdt can resume"), std::string::npos) << error;
  fs::remove_all(dir);
}

// A journal of one part (seeds 3 and 5 of "default", campaign seeds 1..10),
// written by the writer; returns the part's path.
std::string one_part_journal(const std::string& dir, uint64_t second_seed = 5,
                             const std::string& second_profile = "default") {
  CampaignOptions o;
  o.out_dir = dir;
  o.seeds = 10;
  o.first_seed = 1;
  o.profile = "default";
  EXPECT_EQ(start_journal(o, impl::Variant::none), std::nullopt);
  JournalWriter w(o.out_dir, 0, 0, [] { return 0.0; }, campaign_key(o, impl::Variant::none, ""));
  json& d = w.delta();
  d["seeds_run"] = 2;
  d["seeds_done"] = json::array({json::array({"default", 3}), json::array({second_profile, second_seed})});
  d["seed_hashes"] = {"default 3 " + kHash, second_profile + " " + std::to_string(second_seed) + " " + kHash};
  w.checkpoint(true);
  return dir + "/journal/part-r0000-w00-000000.json";
}

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(CampaignJournal, APartCopiedUnderASecondNameIsRefusedNamingTheCopy) {
  const std::string dir = fresh_dir();
  const std::string part = one_part_journal(dir);
  std::string error;
  ASSERT_TRUE(read_journal(dir, &error)) << error;
  const std::string copy = dir + "/journal/part-r0000-w01-000000.json";
  fs::copy_file(part, copy);
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find(copy + ": /seed_hashes/0: seed 'default 3' is also journaled in " + part), std::string::npos)
      << error;
  fs::remove_all(dir);
}

TEST(CampaignJournal, AnEditedPartFailsItsChecksum) {
  const std::string dir = fresh_dir();
  const std::string part = one_part_journal(dir);
  std::string text = text_of(part);
  const size_t at = text.find(kHash);
  ASSERT_NE(at, std::string::npos);
  text[at] = 'f';  // a hand-edited seed hash, still well formed
  std::ofstream(part, std::ios::binary) << text;
  std::string error;
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find(part + ": /checksum: does not match"), std::string::npos) << error;
  // A part without a checksum is not one this qdt wrote.
  json doc = json::parse(text_of(part));
  doc.erase("checksum");
  std::ofstream(part, std::ios::binary) << doc.dump();
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find(part + ": /checksum: missing"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(CampaignJournal, SeedsOutsideTheCampaignAreRefused) {
  for (const auto& [seed, profile] : std::vector<std::pair<uint64_t, std::string>>{
           {11, "default"}, {0, "default"}, {5, "retention"}, {5, "no-such-profile"}}) {
    const std::string dir = fresh_dir();
    const std::string part = one_part_journal(dir, seed, profile);
    std::string error;
    EXPECT_FALSE(read_journal(dir, &error)) << profile << " " << seed;
    EXPECT_NE(error.find(part + ": /seeds_done/1: seed '" + profile + " " + std::to_string(seed) +
                         "' is not in this campaign"),
              std::string::npos)
        << error;
    fs::remove_all(dir);
  }
}

// A journal handed over is believed only where it cannot lie: a part of
// another campaign (another engine) or a relabelled campaign.json fails the
// checksum, which covers the campaign's key.
TEST(CampaignJournal, APartOfAnotherEngineOrARelabelledEngineFailsTheChecksum) {
  const std::string lite = fresh_dir();
  const std::string lite_part = one_part_journal(lite);
  const std::string pg = fresh_dir();
  CampaignOptions o;
  o.out_dir = pg;
  o.seeds = 10;
  o.first_seed = 1;
  o.profile = "default";
  o.engine = StorageEngineKind::postgres;
  ASSERT_EQ(start_journal(o, impl::Variant::none), std::nullopt);
  std::string error;
  ASSERT_TRUE(read_journal(pg, &error)) << error;
  fs::copy_file(lite_part, pg + "/journal/part-r0000-w00-000000.json");
  EXPECT_FALSE(read_journal(pg, &error));
  EXPECT_NE(error.find("part-r0000-w00-000000.json: /checksum: does not match"), std::string::npos) << error;

  const std::string manifest = lite + "/journal/campaign.json";
  json m = json::parse(std::ifstream(manifest));
  m["engine"] = "postgres";
  std::ofstream(manifest) << m.dump(2);
  EXPECT_FALSE(read_journal(lite, &error));
  EXPECT_NE(error.find(lite_part + ": /checksum: does not match"), std::string::npos) << error;
  fs::remove_all(lite);
  fs::remove_all(pg);
}

// A run count past what part names hold would have the next run write over
// run 0's parts: refused, and nothing of the journal is touched.
TEST(CampaignJournal, ARunCountPastTheNamesOrAPartOfALaterRunIsRefused) {
  const std::string dir = fresh_dir();
  const std::string part = one_part_journal(dir);
  const std::string manifest = dir + "/journal/campaign.json";
  json m = json::parse(std::ifstream(manifest));
  m["run"] = UINT64_MAX;
  std::ofstream(manifest) << m.dump(2);
  std::string error;
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find("campaign.json: /run: "), std::string::npos) << error;
  EXPECT_TRUE(fs::exists(part));
  m["run"] = 0;
  std::ofstream(manifest) << m.dump(2);
  ASSERT_TRUE(read_journal(dir, &error)) << error;
  const std::string later = dir + "/journal/part-r0001-w00-000000.json";
  fs::copy_file(part, later);
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find(later + ": not a part name this journal's runs (0 to 0) wrote"), std::string::npos) << error;
  fs::remove(later);
  fs::copy_file(part, dir + "/journal/part-r0000-w00-000000.json.bak");
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find(".bak: not a part name"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(CampaignJournal, APartWhoseWriteNeverFinishedIsNeitherReadNorDeleted) {
  const std::string dir = fresh_dir();
  const std::string part = one_part_journal(dir);
  // A worker killed between writing a part and renaming it.
  const std::string unfinished = dir + "/journal/part-r0000-w01-000003.json.tmp-4242";
  std::ofstream(unfinished) << "{\"seeds_run\": 1, \"tru";
  std::string error;
  EXPECT_TRUE(read_journal(dir, &error)) << error;
  EXPECT_TRUE(fs::exists(unfinished));
  // Only that shape: anything else beside the parts is still refused.
  fs::rename(unfinished, dir + "/journal/part-r0000-w01-000003.json.tmp-x");
  EXPECT_FALSE(read_journal(dir, &error));
  EXPECT_NE(error.find(".tmp-x: not a part name"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(CampaignJournal, AWriterNeverReplacesAnEarlierPart) {
  const std::string dir = fresh_dir();
  const std::string part = one_part_journal(dir);
  const std::string before = text_of(part);
  CampaignOptions o;
  o.out_dir = dir;
  o.seeds = 10;
  o.first_seed = 1;
  o.profile = "default";
  JournalWriter w(dir, 0, 0, [] { return 0.0; }, campaign_key(o, impl::Variant::none, ""));
  w.delta()["seeds_run"] = 1;
  w.delta()["seeds_done"] = json::array({json::array({"default", 7})});
  w.delta()["seed_hashes"] = {"default 7 " + kHash};
  w.checkpoint(true);
  EXPECT_EQ(text_of(part), before);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qdt::sim
