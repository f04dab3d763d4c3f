// cutune._core: the package's functions that need no GPU (python/cutune/__init__.py wraps them).
// JSON text crosses the boundary; the package turns it into dicts. Long calls release the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>

#include <exception>

#include "cutune_python.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using cutune::python::HostKernel;
using cutune::python::Lookup;
using cutune::python::TuneRequest;

// A host array's element type as a spec names it ("f32", "i64", ...); "?" for one no spec has.
std::string spec_type(nb::dlpack::dtype t) {
  const char* kind = t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)    ? "f"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)    ? "i"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt)   ? "u"
                     : t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat) ? "bf"
                                                                                           : "?";
  return std::string(kind) + std::to_string(t.bits);
}

// The settings that cutune.tune and a host kernel's tune both take, in the order both entry
// points take them.
TuneRequest tune_request(std::string strategy, std::string effort, std::size_t budget,
                         double seconds, std::uint64_t seed, std::string db, bool store,
                         bool warm_start, bool transfer) {
  TuneRequest request;
  request.strategy = std::move(strategy);
  request.effort = std::move(effort);
  request.budget = budget;
  request.seconds = seconds;
  request.seed = seed;
  request.db = std::move(db);
  request.store = store;
  request.warm_start = warm_start;
  request.transfer = transfer;
  return request;
}

// A tune's stop request, shared between the Python thread that sets it and the tune reading it.
struct StopFlag {
  std::atomic<bool> flag{false};
};

NB_MODULE(_core, m) {
  m.doc() = "cutune's C++ side without the GPU: space reports, tunes, runtime lookups (JSON text)";
  m.def("outcome_names_json", &cutune::python::outcome_names_json);
  m.def("space_json", &cutune::python::space_json, "spec_or_family"_a, "problem"_a, "draws"_a,
        "seed"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "tune_json",
      [](std::string spec_or_family, std::string problem, std::string strategy, std::string effort,
         std::size_t budget, double seconds, std::uint64_t seed, std::string db, bool store,
         bool warm_start, bool transfer, const StopFlag* stop, nb::handle progress) {
        TuneRequest request = tune_request(std::move(strategy), std::move(effort), budget, seconds,
                                           seed, std::move(db), store, warm_start, transfer);
        request.spec_or_family = std::move(spec_or_family);
        request.problem = std::move(problem);
        request.stop = stop != nullptr ? &stop->flag : nullptr;
        // The callback runs Python: with the GIL, and its exception stops the tune and is raised
        // when the tune returns.
        std::exception_ptr raised;
        if (!progress.is_none()) {
          request.on_progress = [&](const std::string& text) {
            nb::gil_scoped_acquire gil;
            try {
              progress(text);
              return true;
            } catch (const nb::python_error&) {
              raised = std::current_exception();
              return false;
            }
          };
        }
        std::string out = cutune::python::tune_json(request);
        if (raised) std::rethrow_exception(raised);
        return out;
      },
      "spec_or_family"_a, "problem"_a, "strategy"_a, "effort"_a, "budget"_a, "seconds"_a, "seed"_a,
      "db"_a, "store"_a, "warm_start"_a, "transfer"_a, "stop"_a.none() = nb::none(),
      "progress"_a.none() = nb::none(), nb::call_guard<nb::gil_scoped_release>());
  // What cutune.tune() sets on SIGINT while a tune runs in another thread.
  nb::class_<StopFlag>(m, "StopFlag").def(nb::init<>()).def("set", [](StopFlag& stop) {
    stop.flag = true;
  });
  // The measure and normalize functions are Python's: the tune runs without the GIL and each
  // call takes it back (nanobind's std::function wrapper does).
  m.def(
      "host_tune_json",
      [](std::string spec, std::string origin, std::string problem, std::string device,
         std::string toolchain, std::string strategy, std::string effort, std::size_t budget,
         double seconds, std::uint64_t seed, std::string db, bool store, bool warm_start,
         bool transfer, std::size_t batch, std::size_t patience, std::size_t min_evaluations,
         std::size_t final_climb, cutune::python::MeasureText measure,
         cutune::python::NormalizeText normalize) {
        HostKernel kernel{std::move(spec), std::move(origin), std::move(problem), std::move(device),
                          std::move(toolchain)};
        TuneRequest request = tune_request(std::move(strategy), std::move(effort), budget, seconds,
                                           seed, std::move(db), store, warm_start, transfer);
        request.batch = batch;
        request.patience = patience;
        request.min_evaluations = min_evaluations;
        request.final_climb = final_climb;
        return cutune::python::host_tune_json(kernel, request, std::move(measure),
                                              std::move(normalize));
      },
      "spec"_a, "origin"_a, "problem"_a, "device"_a, "toolchain"_a, "strategy"_a, "effort"_a,
      "budget"_a, "seconds"_a, "seed"_a, "db"_a, "store"_a, "warm_start"_a, "transfer"_a, "batch"_a,
      "patience"_a, "min_evaluations"_a, "final_climb"_a, "measure"_a, "normalize"_a.none(),
      nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "host_decision_json",
      [](std::string spec, std::string origin, std::string problem, std::string device,
         std::string toolchain, std::string db) {
        HostKernel kernel{std::move(spec), std::move(origin), std::move(problem), std::move(device),
                          std::move(toolchain)};
        return cutune::python::host_decision_json(kernel, db);
      },
      "spec"_a, "origin"_a, "problem"_a, "device"_a, "toolchain"_a, "db"_a,
      nb::call_guard<nb::gil_scoped_release>());
  m.def("default_store", &cutune::python::default_store);
  nb::class_<Lookup>(m, "Lookup")
      .def(nb::init<const std::string&>(), "db"_a)
      .def("get", &Lookup::get, "spec_or_family"_a, "problem"_a,
           nb::call_guard<nb::gil_scoped_release>())
      // C-contiguous host arrays (numpy's, or any DLPack producer's); the kernel runs without the
      // GIL.
      .def(
          "run",
          [](Lookup& self, const std::string& spec_or_family, const std::string& problem,
             const nb::list& arrays) {
            std::vector<Lookup::Array> host;
            for (nb::handle item : arrays) {
              nb::ndarray<nb::device::cpu, nb::c_contig> a;
              if (!nb::try_cast(item, a)) {
                throw std::invalid_argument(
                    "argument " + std::to_string(host.size()) + " is a " +
                    nb::cast<std::string>(nb::str(item.type().attr("__name__"))) +
                    ", not a C-contiguous host array (numpy's)");
              }
              host.push_back({a.data(), a.size(), spec_type(a.dtype())});
            }
            nb::gil_scoped_release release;
            self.run(spec_or_family, problem, host);
          },
          "spec_or_family"_a, "problem"_a, "arrays"_a);
}
