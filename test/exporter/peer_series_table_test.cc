#include "exporter/peer_series_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "test/exporter/page_checks.h"

namespace carbonroute::exporter {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const ExpositionSource& source, std::size_t piece = 1 << 20) {
  std::unique_ptr<ExpositionSnapshot> snapshot = source.Snapshot();
  std::string text;
  while (snapshot->WriteSome(text, text.size() + piece)) {
  }
  return text;
}

TEST(PeerSeriesTable, AProbesResultIsExportedWithItsPeersState) {
  PeerSeriesTable table;
  PeerSeriesTable::Peer& peer = table.Add("node-a", "node-b");
  EXPECT_EQ(Text(table), "");  // no series before the first result
  table.RecordProbe(peer, absl::Milliseconds(5), absl::Milliseconds(5), 0);
  table.RecordProbe(peer, std::nullopt, absl::Milliseconds(5), 0.5);
  table.RecordProbe(peer, absl::Microseconds(70), absl::Microseconds(4400), 1.0 / 3);
  const std::string text = Text(table);
  EXPECT_THAT(text, HasSubstr("# TYPE carbonroute_rtt_seconds gauge\n"
                              "carbonroute_rtt_seconds{method=\"measured\",source=\"node-a\","
                              "target=\"node-b\"} 0.0044\n"));
  EXPECT_THAT(text, HasSubstr("carbonroute_probe_loss_ratio{source=\"node-a\",target=\"node-b\"} "
                              "0.3333333333333333\n"));
  EXPECT_THAT(text,
              HasSubstr("carbonroute_probe_sent_total{source=\"node-a\",target=\"node-b\"} 3\n"));
  EXPECT_THAT(
      text, HasSubstr("carbonroute_probe_received_total{source=\"node-a\",target=\"node-b\"} 2\n"));
  // Cumulative buckets, le in the order prometheus-cpp writes it.
  EXPECT_THAT(text,
              HasSubstr("# TYPE carbonroute_probe_rtt_seconds histogram\n"
                        "carbonroute_probe_rtt_seconds_bucket{source=\"node-a\",target=\"node-b\","
                        "le=\"5e-05\"} 0\n"
                        "carbonroute_probe_rtt_seconds_bucket{source=\"node-a\",target=\"node-b\","
                        "le=\"0.0001\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("le=\"0.0025\"} 1\ncarbonroute_probe_rtt_seconds_bucket{source=\"node-a\","
                        "target=\"node-b\",le=\"0.005\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("le=\"+Inf\"} 2\ncarbonroute_probe_rtt_seconds_sum{source=\"node-a\","
                              "target=\"node-b\"} 0.00507\ncarbonroute_probe_rtt_seconds_count{"
                              "source=\"node-a\",target=\"node-b\"} 2\n"));
  EXPECT_EQ(testing::CheckProbePage(text), "");
}

TEST(PeerSeriesTable, AStaleRttIsRemovedAndARemovedPeerLeavesNothingButItsDeclaredRtt) {
  PeerSeriesTable table;
  table.SetDeclaredRtt("node-a", "node-b", absl::Milliseconds(7));
  PeerSeriesTable::Peer& peer = table.Add("node-a", "node-b");
  table.RecordProbe(peer, absl::Milliseconds(5), absl::Milliseconds(5), 0);
  table.SetState(peer, std::nullopt, 0.25);
  std::string text = Text(table);
  EXPECT_THAT(text, HasSubstr("carbonroute_rtt_seconds{method=\"declared\",source=\"node-a\","
                              "target=\"node-b\"} 0.007\n"));
  EXPECT_THAT(text, Not(HasSubstr("method=\"measured\"")));
  EXPECT_THAT(
      text, HasSubstr("carbonroute_probe_loss_ratio{source=\"node-a\",target=\"node-b\"} 0.25\n"));
  table.Remove("node-a", "node-b");
  text = Text(table);
  EXPECT_THAT(text, HasSubstr("method=\"declared\""));
  EXPECT_THAT(text, Not(HasSubstr("carbonroute_probe_")));
}

TEST(PeerSeriesTable, HistogramsAreExportedUpToTheirPeerCount) {
  PeerSeriesTable table(/*histogram_max_peers=*/1);
  table.RecordProbe(table.Add("a", "b"), absl::Milliseconds(1), absl::Milliseconds(1), 0);
  EXPECT_THAT(Text(table),
              HasSubstr("carbonroute_probe_rtt_seconds_count{source=\"a\",target=\"b\"} 1"));
  table.RecordProbe(table.Add("a", "c"), absl::Milliseconds(1), absl::Milliseconds(1), 0);
  EXPECT_THAT(Text(table), Not(HasSubstr("carbonroute_probe_rtt_seconds")));
  // Counted meanwhile: switched on, a histogram starts from the true totals.
  table.RecordProbe(table.Add("a", "b"), absl::Milliseconds(1), absl::Milliseconds(1), 0);
  table.set_histogram_max_peers(2);
  EXPECT_THAT(Text(table),
              HasSubstr("carbonroute_probe_rtt_seconds_count{source=\"a\",target=\"b\"} 2"));
  table.set_histogram_max_peers(0);
  EXPECT_THAT(Text(table), Not(HasSubstr("carbonroute_probe_rtt_seconds")));
}

TEST(PeerSeriesTable, LabelValuesAreEscaped) {
  PeerSeriesTable table;
  table.RecordProbe(table.Add("a", "odd\"name\\with\nall"), std::nullopt, std::nullopt, 1);
  EXPECT_THAT(Text(table), HasSubstr("carbonroute_probe_sent_total{source=\"a\",target="
                                     "\"odd\\\"name\\\\with\\nall\"} 1\n"));
}

TEST(PeerSeriesTable, ASnapshotKeepsItsInstantAndIsWrittenInWholeLines) {
  PeerSeriesTable table;
  for (int i = 0; i < 50; ++i) {
    table.RecordProbe(table.Add("a", absl::StrCat("peer-", i)), absl::Milliseconds(i),
                      absl::Milliseconds(i), 0);
  }
  std::unique_ptr<ExpositionSnapshot> snapshot = table.Snapshot();
  const std::string before = Text(table);
  table.RecordProbe(table.Add("a", "peer-0"), std::nullopt, std::nullopt, 1);
  std::string pieces;
  int calls = 0;
  for (std::string piece; snapshot->WriteSome(piece, 100); piece.clear()) {
    ASSERT_FALSE(piece.empty());
    EXPECT_EQ(piece.back(), '\n');
    pieces += piece;
    ++calls;
  }
  EXPECT_GT(calls, 50);
  EXPECT_EQ(pieces, before);
  EXPECT_NE(Text(table), before);
}

TEST(PeerSeriesTable, ASnapshotThatEndsWithinACallStillHandsOverItsLastLines) {
  PeerSeriesTable table(/*histogram_max_peers=*/0);
  table.RecordProbe(table.Add("a", "b"), absl::Milliseconds(1), absl::Milliseconds(1), 0);
  const std::string whole = Text(table);
  std::unique_ptr<ExpositionSnapshot> snapshot = table.Snapshot();
  std::string piece;
  ASSERT_TRUE(snapshot->WriteSome(piece, 1 << 20));  // the whole page, then the end
  EXPECT_EQ(piece, whole);
  EXPECT_FALSE(snapshot->WriteSome(piece, 1 << 20));  // nothing left, nothing appended
  EXPECT_EQ(piece, whole);
}

TEST(PeerSeriesTable, EverySnapshotIsConsistentWhileProbesAreRecorded) {
  PeerSeriesTable table;
  std::vector<PeerSeriesTable::Peer*> peers;
  for (int i = 0; i < 50; ++i) peers.push_back(&table.Add("a", absl::StrCat("peer-", i)));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> recorded{0};
  std::thread prober([&] {
    for (uint64_t n = 0; !stop; recorded = ++n) {
      PeerSeriesTable::Peer& peer = *peers[n % peers.size()];
      const bool lost = n % 7 == 0;
      table.RecordProbe(peer, lost ? std::nullopt : std::optional(absl::Microseconds(n % 9000)),
                        absl::Milliseconds(1), lost ? 0.1 : 0);
    }
  });
  while (recorded < 1000) std::this_thread::yield();  // the writer runs
  uint64_t first_sent = 0, last_sent = 0;
  for (int scrape = 0; scrape < 200; ++scrape) {
    const std::string text = Text(table, 4096);
    ASSERT_EQ(testing::CheckProbePage(text), "") << "scrape " << scrape;
    last_sent = testing::SumOf(text, "carbonroute_probe_sent_total");
    if (scrape == 0) first_sent = last_sent;
  }
  stop = true;
  prober.join();
  EXPECT_GT(last_sent, first_sent);  // the pages were taken while probes were being recorded
}

}  // namespace
}  // namespace carbonroute::exporter
