// Uses only the installed lookup runtime. usage: lookup_consumer WINNERS.json FAMILY PROBLEM
#include <cstdio>

#include "cutune/lookup.hpp"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const auto table = cutune::LookupTable::load(argv[1]);
  std::printf("%s\n", table.find(table.prepare(argv[2], argv[3])).config.dump().c_str());
  return 0;
}
