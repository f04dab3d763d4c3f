// The GEMM problem's timing option (gemm::Timing): a tune for decoding's back-to-back regime is
// its own store key, and its evaluator's every request, paired rounds included, times without
// the L2 flush; the default (flushed) keeps the key that tunes made before the option existed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gemm/gemm_evaluator.hpp"
#include "gemm/gemm_family_record.hpp"
#include "gemm/gemm_protocol.hpp"
#include "gemm/gemm_space.hpp"

namespace cutune {
namespace {

const char* const kSkinny = "m=16,n=8192,k=8192";

Problem resolved(const std::string& extra) {
  return resolve_gemm_problem(Problem::parse(std::string(kSkinny) + extra));
}

TEST(GemmTiming, FlushedIsTheDefaultAndStaysOutOfTheProblemText) {
  EXPECT_EQ(resolved(",timing=flushed"), resolved(""));
  EXPECT_FALSE(resolved("").has("timing"));
  EXPECT_EQ(to_gemm_problem(resolved("")).timing, gemm::Timing::flushed);
  EXPECT_EQ(to_gemm_problem(resolved(",timing=back_to_back")).timing, gemm::Timing::back_to_back);
}

TEST(GemmTiming, EachRegimeIsItsOwnStoreKey) {
  const Family family = gemm_tuning_family();
  const Problem flushed = family.resolved(Problem::parse(kSkinny));
  const Problem back_to_back =
      family.resolved(Problem::parse(std::string(kSkinny) + ",timing=back_to_back"));
  const TuningKey a = family.key(flushed, "NVIDIA H200 (sm_90)", "nvcc");
  const TuningKey b = family.key(back_to_back, "NVIDIA H200 (sm_90)", "nvcc");
  // The same key but for its problem: the store finds neither regime's winner under the other.
  EXPECT_EQ(a.family_version, b.family_version);
  EXPECT_NE(a.problem, b.problem);
  EXPECT_NE(b.problem.find("timing=back_to_back"), std::string::npos);
}

TEST(GemmTiming, TheRegimeReachesTheWorkersRequestThroughItsJson) {
  const GemmEvaluatorOptions options;
  const auto request = [&](const std::string& extra) {
    const cuda::protocol::GemmRequest r =
        gemm_request(to_gemm_problem(resolved(extra)), options, 1);
    // What the worker reads: the request after the protocol's JSON.
    return nlohmann::json(r).get<cuda::protocol::GemmRequest>();
  };
  EXPECT_TRUE(request("").timing.flush_l2);
  EXPECT_FALSE(request(",timing=back_to_back").timing.flush_l2);
  // The paired rounds' request is the same request with rounds set: it keeps the regime.
  cuda::protocol::GemmRequest rounds = request(",timing=back_to_back");
  rounds.rounds = 7;
  EXPECT_FALSE(nlohmann::json(rounds).get<cuda::protocol::GemmRequest>().timing.flush_l2);
}

TEST(GemmTiming, AnUnknownRegimeIsRefusedByName) {
  try {
    resolved(",timing=cold");
    FAIL() << "timing=cold was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("timing 'cold' is not flushed or back_to_back"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace cutune
