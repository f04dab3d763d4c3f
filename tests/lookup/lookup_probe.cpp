// A program that deploys tuned configs with the lookup runtime alone:
//   cutune_lookup_probe WINNERS.json FAMILY PROBLEM  -> prints the config and where it came from.
#include <cstdio>
#include <exception>

#include "cutune/lookup.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s WINNERS.json FAMILY PROBLEM\n", argv[0]);
    return 2;
  }
  try {
    const auto table = cutune::LookupTable::load(argv[1]);
    const auto& answer = table.find(table.prepare(argv[2], argv[3]));
    std::printf("%s %s\n", answer.source == cutune::LookupSource::tuned ? "tuned" : "fallback",
                answer.config.dump().c_str());
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
