// The PostgreSQL store against a real server (the ctest fixture's): it keeps and reads results and
// decisions exactly as the SQLite store does, and its claims give a candidate to one participant
// for as long as that participant's connection lives.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "store/postgres_testing.hpp"
#include "store_testing.hpp"

namespace cutune {
namespace {

using testing::timed;

// Everything a reader sees of a store, as text, so that two backends compare in one assertion.
// tune-1's decision for cfg-128, whose row is `row`.
Decision decision_for(const TuningKey& key, std::int64_t row) {
  Decision d;
  d.key = key;
  d.tune_id = "tune-1";
  d.winner_hash = "cfg-128";
  d.winner_json = R"({"block_m": 128})";
  d.winner_measurement = row;
  d.default_hash = "cfg-64";
  d.speedup = 1.3;
  d.rounds = 15;
  d.finalists_json = R"([{"config_hash": "cfg-128"}])";
  return d;
}

std::string everything(Store& store, const std::vector<TuningKey>& keys) {
  std::string text;
  const auto add = [&](const StoredResult& r) {
    const Measurement& m = r.measurement;
    text += fmt::format("{} {} {} {} {:.17g} {:.17g} {:.17g} {} {} {} {:.17g} {} '{}'\n",
                        r.key.canonical(), r.config_hash, r.config_json, to_string(m.outcome),
                        m.time_ms, m.spread, m.iqr_spread, m.repetitions, m.detail, r.tune_id,
                        r.timestamp, m.device, m.device_name);
  };
  for (const TuningKey& key : keys) {
    text += fmt::format("key {} count {}\n", key.canonical(), store.measurement_count(key));
    for (const StoredResult& r : store.results(key)) add(r);
    text += "best\n";
    for (const StoredResult& r : store.best(key, 2)) add(r);
    text += "deployed\n";
    if (auto d = store.deployed(key)) add(*d);
    if (auto d = store.decision(key)) {
      text += fmt::format("decision {} {} {:.17g} {}\n", d->winner_hash, d->tune_id, d->speedup,
                          d->finalists_json);
    }
    if (auto m = store.find(key, "cfg-128")) text += fmt::format("find {}\n", m->time_ms);
  }
  for (const TuningKey& key : store.keys()) text += "keys " + key.canonical() + "\n";
  for (const StoredResult& r : store.best_per_key({.family = "gemm"})) add(r);
  return text;
}

// The same writes into a store; the winner of the first key is decided against its faster time.
void write_sample(Store& store, const TuningKey& a, const TuningKey& b) {
  store.record(timed(a, 64, 2.0));
  const std::int64_t decided = store.record(timed(a, 128, 1.5));
  store.record(timed(a, 256, 1.2));
  store.record(testing::failed(a, 32, Outcome::compile_error, "ptxas: too many registers"));
  store.record(timed(b, 64, 3.0));
  store.record(timed(b, 64, 2.5, "tune-2"));  // a re-measurement supersedes
  store.record_decision(decision_for(a, decided));
}

TEST(PostgresStore, ReadsBackWhatItWroteExactlyAsTheSQLiteStoreDoes) {
  testing::TempDir dir;
  const TuningKey a = testing::gemm_key();
  const TuningKey b = testing::gemm_key("m=128,n=8192,k=8192,dtype=bf16");
  Store sqlite = Store::open(dir / "results.db");
  Store postgres = Store::open(testing::fresh_postgres_database());
  EXPECT_FALSE(sqlite.shared());
  EXPECT_TRUE(postgres.shared());
  write_sample(sqlite, a, b);
  write_sample(postgres, a, b);
  const std::string expected = everything(sqlite, {a, b});
  EXPECT_NE(expected.find("decision cfg-128"), std::string::npos);
  EXPECT_NE(expected.find(" 1 'NVIDIA H200'"), std::string::npos);  // the measuring device
  EXPECT_NE(expected.find(" -1 ''"), std::string::npos);            // a compile error: no device
  EXPECT_EQ(everything(postgres, {a, b}), expected);
}

TEST(PostgresStore, OpensAnExistingStoreReadOnlyAndRefusesAnEmptyDatabaseReadOnly) {
  const std::string url = testing::fresh_postgres_database();
  EXPECT_THROW(Store::open(url, OpenMode::read_only), StoreError);
  Store::open(url).record(timed(testing::gemm_key(), 64, 2.0));
  Store reader = Store::open(url, OpenMode::read_only);
  EXPECT_EQ(reader.measurement_count(testing::gemm_key()), 1);
  EXPECT_THROW(reader.record(timed(testing::gemm_key(), 128, 1.0)), StoreError);
}

// A store from before the measuring device was kept: the columns and the views that show them
// are gone, one row written without them.
TEST(PostgresStore, AnOlderStoreReadsReadOnlyAndGainsTheDeviceColumnsWhenOpenedForWriting) {
  const std::string url = testing::fresh_postgres_database();
  const TuningKey key = testing::gemm_key();
  Store::open(url).record(timed(key, 64, 2.0));
  {
    postgres::Connection raw(url);
    raw.execute(
        "ALTER TABLE measurements DROP COLUMN device_index CASCADE, DROP COLUMN device_name "
        "CASCADE");
  }
  const auto column_count = [&] {
    postgres::Connection raw(url);
    return raw
        .run(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = "
            "'measurements' AND column_name LIKE 'device%'")
        .integer(0, 0);
  };
  ASSERT_EQ(column_count(), 0);
  {
    Store reader = Store::open(url, OpenMode::read_only);
    const auto rows = reader.results(key);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].measurement.device, -1);  // not kept, not made up
    EXPECT_EQ(rows[0].measurement.device_name, "");
    EXPECT_EQ(column_count(), 0);  // read-only leaves it as it is
  }
  Store writer = Store::open(url);
  EXPECT_EQ(column_count(), 2);
  writer.record(timed(key, 128, 1.0));
  const auto best = writer.best_per_key();  // the views are back, with the new columns
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].config_hash, "cfg-128");
  EXPECT_EQ(best[0].measurement.device, 1);
  EXPECT_EQ(best[0].measurement.device_name, "NVIDIA H200");
  EXPECT_EQ(writer.results(key).at(0).measurement.device, -1);
}

// Issue 17: a transient row after an ok one does not hide the config (as in the SQLite store), in
// best() nor in latest_results(); a database whose view predates the rule gets it when opened for
// writing (the views made again). A read-only session may create no TEMP views: it reads by the
// database's own rule until then.
TEST(PostgresStore, ATransientRowAfterAnOkOneDoesNotHideTheConfig) {
  const std::string url = testing::fresh_postgres_database();
  const TuningKey key = testing::gemm_key();
  {
    Store store = Store::open(url);
    store.record(timed(key, 64, 1.0));
    store.record(timed(key, 128, 0.7));
    store.record(testing::failed(key, 128, Outcome::transient, "killed from outside 3 times"));
    const auto best = store.best(key, 2);
    ASSERT_EQ(best.size(), 2u);
    EXPECT_EQ(best[0].config_hash, "cfg-128");
    EXPECT_EQ(store.deployed(key)->config_hash, "cfg-128");
    EXPECT_EQ(store.best_per_key().at(0).config_hash, "cfg-128");
    const auto latest = store.latest_results(key);
    ASSERT_EQ(latest.size(), 2u);
    EXPECT_EQ(latest[1].config_hash, "cfg-128");
    EXPECT_EQ(latest[1].measurement.outcome, Outcome::ok);
  }
  postgres::Connection(url).execute(
      "CREATE OR REPLACE VIEW latest_per_config AS SELECT * FROM (SELECT m.*, row_number() OVER "
      "(PARTITION BY m.key_id, m.config_hash ORDER BY m.id DESC) AS newness FROM measurements m) "
      "ranked WHERE newness = 1");
  EXPECT_EQ(Store::open(url, OpenMode::read_only).best(key, 2).size(), 1u);  // the old rule
  EXPECT_EQ(Store::open(url).best(key, 2).size(), 2u);
  Store reader = Store::open(url, OpenMode::read_only);
  EXPECT_EQ(reader.best(key, 2).size(), 2u);
  EXPECT_EQ(reader.deployed(key)->config_hash, "cfg-128");
  EXPECT_EQ(postgres::Connection(url)
                .run("SELECT count(*) FROM pg_views WHERE viewname = 'latest_per_config' AND "
                     "position('transient' in definition) > 0")
                .integer(0, 0),
            1);
}

TEST(PostgresStore, AnUnreachableServerIsAStoreErrorNamingIt) {
  try {
    Store::open("postgresql:///nothing?host=/nonexistent-cutune-socket");
    FAIL() << "opened a store on no server";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("nonexistent-cutune-socket"), std::string::npos);
  }
}

// A server that accepts the connection and never says a word (a blackhole: a socket listening
// here that nobody accepts on): the open fails at the connect timeout, naming the server, rather
// than hanging the tune.
TEST(PostgresStore, AServerThatNeverAnswersFailsTheOpenNamingIt) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string url = fmt::format("postgresql://tuner@127.0.0.1:{}/cutune?sslmode=disable",
                                      ntohs(address.sin_port));
  const auto start = std::chrono::steady_clock::now();
  try {
    Store::open(url);
    FAIL() << "opened a store on a server that never answers";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find(url), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("did not answer"), std::string::npos) << error.what();
  }
  std::cout << "a blackholed server failed the open in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
  ::close(listener);
}

// The statement timeout the URL asks for (options=-c statement_timeout=...) is kept: a write
// blocked behind another session's lock fails with the server named, instead of waiting forever.
TEST(PostgresStore, AStatementPastItsTimeoutFailsNamingTheServer) {
  const std::string url = testing::fresh_postgres_database();
  Store::open(url);  // the schema
  postgres::Connection blocker(url);
  blocker.execute("BEGIN");
  blocker.execute("LOCK TABLE measurements IN ACCESS EXCLUSIVE MODE");
  const std::string impatient = url + "&options=-c%20statement_timeout%3D300";
  try {
    Store store = Store::open(impatient);
    store.record(timed(testing::gemm_key(), 64, 2.0));
    FAIL() << "a write behind a held lock did not time out";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("statement timeout"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(impatient), std::string::npos) << error.what();
  }
  blocker.execute("ROLLBACK");
}

TEST(PostgresStore, AClaimIsItsOwnersUntilMeasuredOrUntilItsOwnersConnectionEnds) {
  const std::string url = testing::fresh_postgres_database();
  Store store = Store::open(url);
  const TuningKey key = testing::gemm_key();
  const std::string json = R"({"block_m": 64})";
  EXPECT_EQ(store.claim(key, "cfg-64", json, "a", 0), ClaimResult::granted);
  EXPECT_EQ(store.claim(key, "cfg-64", json, "a", 0), ClaimResult::granted);  // again, mine
  {
    Store other = Store::open(url);
    EXPECT_EQ(other.claim(key, "cfg-64", json, "b", 0), ClaimResult::held);
    EXPECT_EQ(other.claims_of_others(key, "b").size(), 1u);
    EXPECT_EQ(other.claims_of_others(key, "b").at(0).owner, "a");
    EXPECT_TRUE(store.claims_of_others(key, "a").empty());
    store.record(timed(key, 64, 2.0));
    EXPECT_EQ(other.claim(key, "cfg-64", json, "b", 0), ClaimResult::measured);
    EXPECT_TRUE(other.claims_of_others(key, "b").empty());

    // b's connection ends (as when its process dies): its claim is an orphan as soon as the
    // server has ended b's session, which it does on its own after the client hung up.
    EXPECT_EQ(other.claim(key, "cfg-128", R"({"block_m": 128})", "b", 0), ClaimResult::granted);
    EXPECT_TRUE(store.orphans(key).empty());
    EXPECT_EQ(store.claim(key, "cfg-128", "{}", "a", 0), ClaimResult::held);
  }
  while (store.orphans(key).empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(store.orphans(key), std::vector<std::string>{R"({"block_m": 128})"});
  EXPECT_EQ(store.claim(key, "cfg-128", "{}", "a", 0), ClaimResult::taken_over);
  EXPECT_TRUE(store.orphans(key).empty());
  store.release(key, "cfg-128", "a");
  Store later = Store::open(url);
  EXPECT_EQ(later.claim(key, "cfg-128", "{}", "c", 0), ClaimResult::granted);
}

TEST(PostgresStore, AnOwnerThatLeavesGivesItsClaimsToTheOthersAtOnce) {
  const std::string url = testing::fresh_postgres_database();
  Store store = Store::open(url);
  Store other = Store::open(url);
  const TuningKey key = testing::gemm_key();
  EXPECT_EQ(store.join(key, "a"), 0u);
  EXPECT_EQ(store.claim(key, "cfg-64", "{}", "a", 0), ClaimResult::granted);
  EXPECT_EQ(other.claim(key, "cfg-64", "{}", "b", 0), ClaimResult::held);
  store.leave("a");
  EXPECT_EQ(other.claim(key, "cfg-64", "{}", "b", 0), ClaimResult::taken_over);
}

TEST(PostgresStore, TwoLiveConnectionsCannotShareAnOwnersName) {
  const std::string url = testing::fresh_postgres_database();
  Store store = Store::open(url);
  Store other = Store::open(url);
  store.join(testing::gemm_key(), "a");
  try {
    other.join(testing::gemm_key(), "a");
    FAIL() << "two connections joined as one owner";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("'a' is already live"), std::string::npos)
        << error.what();
  }
}

TEST(PostgresStore, ADecisionIsCurrentUntilAnotherTuneMeasuresUnderItsKey) {
  Store store = Store::open(testing::fresh_postgres_database());
  const TuningKey key = testing::gemm_key();
  EXPECT_EQ(store.measured_since_decision(key), 0u);
  const std::int64_t winner = store.record(timed(key, 128, 2.0));
  store.record(timed(key, 64, 2.5));  // the deciding tune's other finalist
  store.record_decision(decision_for(key, winner));
  EXPECT_EQ(store.measured_since_decision(key), 0u);
  StoredResult later = timed(key, 256, 1.5);
  later.tune_id = "a later tune";
  store.record(later);
  EXPECT_EQ(store.measured_since_decision(key), 1u);
}

TEST(PostgresStore, TheBudgetCountsMeasuredConfigsAndClaimsButNotRepeats) {
  Store store = Store::open(testing::fresh_postgres_database());
  const TuningKey key = testing::gemm_key();
  store.record(timed(key, 64, 2.0));
  store.record(timed(key, 64, 1.9));  // the same config again: still one of the budget
  EXPECT_EQ(store.claim(key, "cfg-128", "{}", "a", 3), ClaimResult::granted);
  EXPECT_EQ(store.claim(key, "cfg-256", "{}", "b", 3), ClaimResult::granted);
  EXPECT_EQ(store.claim(key, "cfg-512", "{}", "b", 3), ClaimResult::budget_full);
  EXPECT_EQ(store.claim(key, "cfg-512", "{}", "b", 0), ClaimResult::granted);  // no cap
}

TEST(PostgresStore, ParticipantsAreNumberedInTheOrderTheyJoinedAKey) {
  Store store = Store::open(testing::fresh_postgres_database());
  const TuningKey key = testing::gemm_key();
  EXPECT_EQ(store.join(key, "first"), 0u);
  EXPECT_EQ(store.join(key, "second"), 1u);
  EXPECT_EQ(store.join(key, "first"), 0u);
  EXPECT_EQ(store.join(testing::gemm_key("m=1,n=1,k=1,dtype=bf16"), "second"), 0u);
  // Keys that only hold participants or claims are not keys with results.
  EXPECT_TRUE(store.keys().empty());
}

TEST(PostgresStore, AnSQLiteStoreRefusesTheCallsOfASharedTune) {
  testing::TempDir dir;
  Store store = Store::open(dir / "results.db");
  EXPECT_THROW(store.claim(testing::gemm_key(), "cfg-64", "{}", "a", 0), StoreError);
  EXPECT_THROW(store.join(testing::gemm_key(), "a"), StoreError);
}

}  // namespace
}  // namespace cutune
