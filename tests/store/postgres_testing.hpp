// The PostgreSQL server the tests run against: scripts/postgres-test-server.sh, started by ctest's
// "postgres" fixture (tests/store/CMakeLists.txt), writes its URL to CUTUNE_POSTGRES_STATE. Each
// test takes a database of its own on it.
#pragma once

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <stdexcept>
#include <string>

#include "store/postgres.hpp"

namespace cutune::testing {

// The URL of the server's maintenance database.
inline std::string postgres_server_url() {
  std::ifstream state(CUTUNE_POSTGRES_STATE);
  std::string url;
  if (!std::getline(state, url) || url.empty()) {
    throw std::runtime_error(
        "no test PostgreSQL server: run the tests through ctest (fixture "
        "'postgres'), or scripts/postgres-test-server.sh start " +
        std::string(CUTUNE_POSTGRES_STATE));
  }
  return url;
}

// A new, empty database on the test server; its URL.
inline std::string fresh_postgres_database() {
  static std::atomic<int> counter{0};
  const std::string url = postgres_server_url();
  const std::string name =
      "cutune_test_" + std::to_string(getpid()) + "_" + std::to_string(counter.fetch_add(1));
  postgres::Connection server(url);
  server.execute("DROP DATABASE IF EXISTS " + name);
  server.execute("CREATE DATABASE " + name);
  const std::string maintenance = "/postgres?";
  const std::size_t at = url.find(maintenance);
  if (at == std::string::npos) throw std::runtime_error("unexpected test server URL " + url);
  return url.substr(0, at) + "/" + name + "?" + url.substr(at + maintenance.size());
}

}  // namespace cutune::testing
