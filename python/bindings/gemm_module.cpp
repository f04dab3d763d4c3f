// cutune._gemm: tuned Hopper GEMMs on DLPack tensors (PyTorch's CUDA tensors), without a copy:
// nanobind's ndarray reads each tensor's pointer, shape and strides, which are checked here
// against what the kernel takes (row-major A and D, B k x n or its transposed view of n x k).
// The fp8 GEMM takes plain device addresses instead: cutune/__init__.py checks its tensors
// (dtypes, shapes, strides, scales) before the call, and DLPack's fp8 type codes are too recent for
// every PyTorch to export. Imported only when a GEMM is asked for (it links the CUDA driver).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>

#include "cutune_python_gemm.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using cutune::python::GemmRunner;
using cutune::python::GemmShape;
using Tensor = nb::ndarray<nb::device::cuda>;

namespace {

// 0 bf16, 1 fp16; nb::type_error otherwise.
int dtype_of(const Tensor& t, const char* name) {
  const nb::dlpack::dtype dtype = t.dtype();
  if (dtype.bits == 16 && dtype.lanes == 1) {
    if (dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat)) return 0;
    if (dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)) return 1;
  }
  throw nb::type_error((std::string(name) + ": bfloat16 or float16 expected").c_str());
}

bool row_major(const Tensor& t) {
  return t.stride(1) == 1 &&
         (t.stride(0) == static_cast<std::int64_t>(t.shape(1)) || t.shape(0) == 1);
}

std::uint64_t address(const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data()); }

// The GEMM the three tensors describe; ValueError/TypeError naming what does not fit.
GemmShape shape_of(const GemmRunner& runner, const Tensor& a, const Tensor& b, const Tensor& d) {
  if (a.ndim() != 2 || b.ndim() != 2 || d.ndim() != 2) {
    throw nb::value_error("cutune.gemm: a, b and out must be 2-D");
  }
  for (const Tensor* t : {&a, &b, &d}) {
    if (t->device_id() != runner.device()) {
      throw nb::value_error(
          ("cutune.gemm: tensors must be on cuda:" + std::to_string(runner.device()) +
           ", one is on cuda:" + std::to_string(t->device_id()))
              .c_str());
    }
  }
  GemmShape shape;
  shape.m = static_cast<std::int64_t>(a.shape(0));
  shape.k = static_cast<std::int64_t>(a.shape(1));
  shape.n = static_cast<std::int64_t>(b.shape(1));
  shape.dtype = dtype_of(a, "a");
  if (dtype_of(b, "b") != shape.dtype || dtype_of(d, "out") != shape.dtype) {
    throw nb::type_error("cutune.gemm: a, b and out must have one dtype");
  }
  if (static_cast<std::int64_t>(b.shape(0)) != shape.k) {
    throw nb::value_error(("cutune.gemm: a is " + std::to_string(shape.m) + "x" +
                           std::to_string(shape.k) + " but b has " + std::to_string(b.shape(0)) +
                           " rows")
                              .c_str());
  }
  if (static_cast<std::int64_t>(d.shape(0)) != shape.m ||
      static_cast<std::int64_t>(d.shape(1)) != shape.n) {
    throw nb::value_error("cutune.gemm: out must be m x n");
  }
  if (!row_major(a) || !row_major(d)) {
    throw nb::value_error("cutune.gemm: a and out must be contiguous (row-major)");
  }
  if (row_major(b)) {
    shape.b_transposed = false;
  } else if (b.stride(0) == 1 && (b.stride(1) == shape.k || shape.n == 1)) {
    shape.b_transposed = true;  // b = w.T of a row-major n x k w: the kernel's n_by_k layout
  } else {
    throw nb::value_error(
        "cutune.gemm: b must be contiguous, or the transpose of a contiguous "
        "tensor (w.T)");
  }
  return shape;
}

}  // namespace

NB_MODULE(_gemm, m) {
  m.doc() = "cutune's tuned Hopper GEMM on DLPack tensors";
  nb::class_<GemmRunner>(m, "GemmRunner")
      .def(nb::init<const std::string&, int>(), "db"_a, "device"_a)
      .def_prop_ro("device", &GemmRunner::device)
      .def(
          "gemm",
          [](GemmRunner& runner, const Tensor& a, const Tensor& b, const Tensor& d,
             std::uintptr_t stream) {
            runner.launch(shape_of(runner, a, b, d), address(a), address(b), address(d), stream);
          },
          "a"_a.noconvert(), "b"_a.noconvert(), "out"_a.noconvert(), "stream"_a)
      .def(
          "describe",
          [](GemmRunner& runner, const Tensor& a, const Tensor& b, const Tensor& d) {
            return runner.describe(shape_of(runner, a, b, d));
          },
          "a"_a.noconvert(), "b"_a.noconvert(), "out"_a.noconvert())
      .def(
          "gemm_fp8",
          [](GemmRunner& runner, std::int64_t m, std::int64_t n, std::int64_t k,
             const std::string& scaling, const std::string& a_format, const std::string& b_format,
             std::uint64_t a, std::uint64_t b, std::uint64_t d, std::uint64_t scale_a,
             std::uint64_t scale_b, std::uintptr_t stream) {
            runner.launch_fp8({m, n, k, scaling, a_format, b_format}, a, b, d, scale_a, scale_b,
                              stream);
          },
          "m"_a, "n"_a, "k"_a, "scaling"_a, "a_format"_a, "b_format"_a, "a"_a, "b"_a, "out"_a,
          "scale_a"_a, "scale_b"_a, "stream"_a)
      .def(
          "describe_problem",
          [](GemmRunner& runner, const std::string& family, const std::string& problem) {
            return runner.describe(family, problem);
          },
          "family"_a, "problem"_a)
      .def(
          "time_launches",
          [](GemmRunner& runner, const Tensor& a, const Tensor& b, const Tensor& d, int repetitions,
             std::uintptr_t stream, bool flush) {
            return runner.time_launches(shape_of(runner, a, b, d), address(a), address(b),
                                        address(d), flush, repetitions, stream);
          },
          "a"_a.noconvert(), "b"_a.noconvert(), "out"_a.noconvert(), "repetitions"_a, "stream"_a,
          "flush"_a = true, nb::call_guard<nb::gil_scoped_release>());
}
