// The fp8 GEMM runtime family's CPU side: the problem text a call builds (cutune.gemm's lookup,
// the key `cutune tune gemm_fp8` writes), the error of a family made without a CUDA context, and
// the lookup of Runtime::get over a store: a tuned shape's winner, the nearest tuned shape's
// winner repaired, else the default config, with the warning saying which. Run against the
// toolkit's driver stub (ctest sets LD_LIBRARY_PATH), whose every call fails as a machine without a
// GPU would.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/gemm_fp8.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/store.hpp"
#include "families/gemm/gemm_runtime_testing.hpp"
#include "gemm/gemm_runtime_support.hpp"
#include "gemm_fp8/gemm_fp8_family_record.hpp"

namespace cutune {
namespace {

using testing::message_of;

TEST(GemmFp8Family, TheProblemTextIsTheOneTheTunerKeys) {
  EXPECT_EQ(gemm_fp8_problem_text(2048, 4096, 8192, "block"), "k=8192,m=2048,n=4096,scaling=block");
  EXPECT_EQ(gemm_fp8_problem_text(16, 4096, 8192, "tensor", "e5m2", "e4m3"),
            "a_format=e5m2,k=8192,m=16,n=4096,scaling=tensor");
  // Through the one problem rule, as cutune.gemm and `cutune tune gemm_fp8 --problem` read it.
  const FamilySource source = family_source("gemm_fp8");
  for (const char* scaling : {"tensor", "row_col", "block"}) {
    const std::string text = gemm_fp8_problem_text(256, 512, 1024, scaling);
    EXPECT_EQ(
        problem_for(source, text).canonical(),
        source.family.resolve(Problem::parse("m=256,n=512,k=1024,scaling=" + std::string(scaling)))
            .canonical());
  }
  EXPECT_THROW(problem_for(source, gemm_fp8_problem_text(256, 512, 1024, "e5m2")),
               std::invalid_argument);
  // Block scaling's 128-deep scale blocks: k = 1000 is refused before anything compiles.
  EXPECT_NE(message_of([&] {
              problem_for(source, gemm_fp8_problem_text(256, 512, 1000, "block"));
            }).find("k = 1000 is not a multiple of 128"),
            std::string::npos);
}

TEST(GemmFp8Family, WithoutACudaContextCreationFailsClearly) {
  testing::expect_refused_without_context([] { gemm_fp8_family(); }, "gemm_fp8_family");
}

// What the runtime asked the family to load.
class RecordedKernel final : public Kernel {
 public:
  RecordedKernel(Config config, KernelOrigin origin) : Kernel(std::move(config), origin) {}
};

// gemm_fp8_family() as it is made on an H200 (the same runtime_gemm_family over the tuning record),
// but for its loader: a fake that only records, standing in for nvcc's compile and the CUDA
// context this machine lacks. The lookup before the load is the runtime's own.
Family fp8_family_on_h200() {
  runtime::GemmDevice device;
  device.description = Device::h200();
  device.key = "NVIDIA H200 (sm_90)";
  device.driver_version = 13000;
  return runtime::runtime_gemm_family(
      gemm_fp8_tuning_family(), device, "nvcc test; sm_90a",
      [](const Config& config, const Problem&, KernelOrigin origin) {
        return std::make_unique<RecordedKernel>(config, origin);
      });
}

struct Lookup {
  Config config;
  KernelOrigin origin;
  std::string warning;
};

class GemmFp8Lookup : public ::testing::Test {
 protected:
  // A store that tuned 2048x4096x4096 under tensor scaling: its winner a 128x256 tile on a 2x1
  // cluster, no default's choice, so that finding it can only mean the store was read.
  void SetUp() override {
    const Problem tuned =
        family_.resolve(Problem::parse(gemm_fp8_problem_text(2048, 4096, 4096, "tensor")));
    ASSERT_TRUE(family_.tuning->space.legal(winner_, tuned, family_.device));
    auto store = Store::open(dir_ / "results.db");
    StoredResult r;
    r.key = family_.key(tuned, family_.device_key, family_.toolchain);
    r.config_hash = winner_.hash_hex();
    r.config_json = winner_.to_string();
    r.measurement.outcome = Outcome::ok;
    r.measurement.time_ms = 0.1;
    r.measurement.repetitions = 5;
    r.tune_id = "test";
    store.record(r);
  }

  Lookup get(std::int64_t m, std::int64_t n, std::int64_t k, const char* scaling) {
    std::vector<std::string> warnings;
    Runtime runtime({.store = dir_ / "results.db",
                     .on_warning = [&](const std::string& w) { warnings.push_back(w); }});
    runtime.add_family(family_);
    const Kernel& kernel =
        runtime.get("gemm_fp8", Problem::parse(gemm_fp8_problem_text(m, n, k, scaling)));
    return {kernel.config(), kernel.origin(), warnings.empty() ? "" : warnings.back()};
  }

  Config default_for(std::int64_t m, std::int64_t n, std::int64_t k, const char* scaling) const {
    return default_config(*family_.tuning,
                          family_.resolve(Problem::parse(gemm_fp8_problem_text(m, n, k, scaling))),
                          family_.device);
  }

  testing::TempDir dir_;
  Family family_ = fp8_family_on_h200();
  const Config winner_ = family_.tuning->space.complete({{"tile_m", 128},
                                                         {"tile_n", 256},
                                                         {"stages", 3},
                                                         {"schedule", "cooperative_fast_accum"},
                                                         {"cluster_m", 2},
                                                         {"raster", "along_m"},
                                                         {"swizzle", 4}});
};

TEST_F(GemmFp8Lookup, ATunedShapeGetsTheStoresWinner) {
  const Lookup found = get(2048, 4096, 4096, "tensor");
  EXPECT_EQ(found.origin, KernelOrigin::store);
  EXPECT_EQ(found.config, winner_);
  EXPECT_EQ(found.warning, "");
}

// Repaired for the shape: here nothing needs it, the winner runs the near shapes as it is.
TEST_F(GemmFp8Lookup, ANearShapeGetsTheNearestWinner) {
  const Lookup near = get(3072, 4096, 4096, "tensor");  // log2 distance 0.58 from m=2048
  EXPECT_EQ(near.origin, KernelOrigin::nearest);
  EXPECT_EQ(near.config, winner_);
  EXPECT_NE(near.warning.find("nearest tuned shape 'k=4096,m=2048,n=4096,scaling=tensor'"),
            std::string::npos)
      << near.warning;
  const Lookup narrower = get(2048, 3072, 4096, "tensor");
  EXPECT_EQ(narrower.origin, KernelOrigin::nearest);
  EXPECT_EQ(narrower.config, winner_);
}

TEST_F(GemmFp8Lookup, AFarShapeOrAnotherScalingGetsTheDefaultConfigAndIsTold) {
  const Lookup far = get(64, 4096, 4096, "tensor");
  EXPECT_EQ(far.origin, KernelOrigin::default_config);
  EXPECT_EQ(far.config, default_for(64, 4096, 4096, "tensor"));
  EXPECT_NE(far.warning.find("no tuned shape of its kind within distance 1"), std::string::npos)
      << far.warning;
  // The scaling is part of the kind of a shape: a tensor-scaled winner is no block-scaled one's.
  const Lookup block = get(2048, 4096, 4096, "block");
  EXPECT_EQ(block.origin, KernelOrigin::default_config);
  EXPECT_EQ(block.config, default_for(2048, 4096, 4096, "block"));
}

// What the GPU tests' runtime (gemm_runtime_testing.hpp) meets: without a store every shape is
// untuned, its default config loaded, and the warning says so.
TEST(GemmFp8Family, WithoutAStoreEveryShapeIsUntunedAndSaysSo) {
  std::vector<std::string> warnings;
  Runtime runtime({.on_warning = [&](const std::string& w) { warnings.push_back(w); }});
  const Family family = fp8_family_on_h200();
  runtime.add_family(family);
  const Problem problem = Problem::parse(gemm_fp8_problem_text(256, 512, 1024, "block"));
  const Kernel& kernel = runtime.get("gemm_fp8", problem);
  EXPECT_EQ(kernel.origin(), KernelOrigin::default_config);
  EXPECT_EQ(kernel.config(),
            default_config(*family.tuning, family.resolve(problem), family.device));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("gemm_fp8 'k=1024,m=256,n=512,scaling=block' on 'NVIDIA H200 (sm_90)' "
                             "is untuned; no tuned shape of its kind"),
            std::string::npos)
      << warnings[0];
}

}  // namespace
}  // namespace cutune
