// Evaluates configs of the fp8 GEMM family (make_gemm_fp8_space()) on one problem: each config's
// shared library is compiled by nvcc in the CUDA backend's compile pool, then measured by the
// device worker's fp8 mode (op "family", family "gemm_fp8"): checked against the fp32 product of
// the dequantized operands, then timed with L2 flushed unless the problem's timing is
// back_to_back. Failures are the candidate's Measurement.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cutune/evaluator.hpp"
#include "cutune/gemm_types.hpp"
#include "cutune/problem.hpp"

namespace cutune {

class Fp8Evaluator : public Evaluator {
 public:
  // Starts the device workers. Throws std::invalid_argument for a problem the family cannot run,
  // std::runtime_error when no worker starts, the device is not sm_90 or the compiler is missing.
  Fp8Evaluator(const Problem& problem, GemmEvaluatorOptions options = {});
  ~Fp8Evaluator() override;

  std::vector<Measurement> evaluate(std::span<const Config> batch) override;
  std::vector<Measurement> retime(std::span<const Config> batch) override;
  // cuBLASLt's fp8 GEMM with the problem's scaling, timed in the same worker on the same data.
  Measurement time_cublas(int scale = 5);

  std::string device_name() const override;
  std::string toolchain() const override;
  Device device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
