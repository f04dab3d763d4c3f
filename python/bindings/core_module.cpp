// cutune._core: the package's functions that need no GPU (python/cutune/__init__.py wraps them).
// JSON text crosses the boundary; the package turns it into dicts. Long calls release the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <exception>

#include "cutune_python.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using cutune::python::Lookup;
using cutune::python::TuneRequest;

NB_MODULE(_core, m) {
  m.doc() = "cutune's C++ side without the GPU: space reports, tunes, runtime lookups (JSON text)";
  m.def("space_json", &cutune::python::space_json, "spec_or_family"_a, "problem"_a, "draws"_a,
        "seed"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("key_json", &cutune::python::key_json, "spec_or_family"_a, "problem"_a);
  m.def(
      "tune_json",
      [](std::string spec_or_family, std::string problem, std::string strategy, std::string effort,
         std::size_t budget, double seconds, std::uint64_t seed, std::string db, bool store,
         bool warm_start, nb::handle progress) {
        TuneRequest request{std::move(spec_or_family),
                            std::move(problem),
                            std::move(strategy),
                            std::move(effort),
                            budget,
                            seconds,
                            seed,
                            std::move(db),
                            store,
                            warm_start};
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
      "db"_a, "store"_a, "warm_start"_a, "progress"_a.none() = nb::none(),
      nb::call_guard<nb::gil_scoped_release>());
  m.def("default_store", &cutune::python::default_store);
  nb::class_<Lookup>(m, "Lookup")
      .def(nb::init<const std::string&>(), "db"_a)
      .def("get", &Lookup::get, "spec_or_family"_a, "problem"_a,
           nb::call_guard<nb::gil_scoped_release>());
}
