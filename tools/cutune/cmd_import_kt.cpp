// `cutune import-kt`: a cutune spec from a Kernel Tuner description: a tune script (.py), a T1
// input file, a cache file's header, or a Python `tune_params` dict with `restrictions` strings.
#include <fmt/core.h>
#include <zlib.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.hpp"
#include "cutune/kernel_tuner.hpp"
#include "cutune/spec.hpp"
#include "write_file.hpp"

namespace {

struct ImportOptions {
  std::string input;        // tune script, T1 or cache file
  std::string tune_params;  // Python dict text, or @FILE
  std::vector<std::string> restrictions;
  std::vector<long long> problem_size;
  std::string output;
  std::vector<std::string> grid_div_x, grid_div_y, grid_div_z;
  cutune::KtImportOptions kt;
};

// The file's text; gzipped files too (zlib reads plain files as they are).
std::string read_text(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw std::runtime_error(fmt::format("import-kt: cannot open {}", path));
  std::string text;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, got);
  const bool failed = got < 0;
  gzclose(file);
  if (failed) throw std::runtime_error(fmt::format("import-kt: cannot read {}", path));
  return text;
}

// A tune script's spec, its source paths made relative to the output's folder; the kernel source
// the script holds as text is written there.
nlohmann::ordered_json script_spec(const ImportOptions& o, const cutune::KtImportOptions& kt) {
  namespace fs = std::filesystem;
  cutune::KtScriptSpec imported = cutune::spec_from_kt_script(read_text(o.input), kt, o.input);
  for (const auto& note : imported.notes) fmt::print(stderr, "import-kt: note: {}\n", note);
  auto& spec = imported.spec;
  const fs::path folder =
      fs::absolute(o.output.empty() || o.output == "-" ? fs::path(".") : fs::path(o.output))
          .parent_path();
  if (!imported.source_text.empty()) {
    const fs::path source = folder / spec["source"].get<std::string>();
    if (fs::exists(source) && read_text(source.string()) != imported.source_text) {
      throw std::invalid_argument("import-kt: " + source.string() +
                                  " exists and differs from the kernel the script holds");
    }
    cutune::cli::write_file(source.string(), imported.source_text);
    fmt::print(stderr, "wrote {}\n", source.string());
  } else if (kt.source.empty()) {
    spec["source"] =
        fs::absolute(spec["source"].get<std::string>()).lexically_relative(folder).string();
  }
  return spec;
}

nlohmann::ordered_json import_spec(const ImportOptions& o) {
  cutune::KtImportOptions kt = o.kt;
  kt.grid_div = {o.grid_div_x, o.grid_div_y, o.grid_div_z};
  if (o.input.ends_with(".py")) return script_spec(o, kt);
  if (!o.input.empty()) {
    if (!o.tune_params.empty() || !o.restrictions.empty()) {
      throw std::invalid_argument("import-kt: give a FILE or --tune-params, not both");
    }
    const nlohmann::json doc = nlohmann::json::parse(read_text(o.input), nullptr, false);
    if (doc.is_discarded()) throw std::invalid_argument("import-kt: " + o.input + ": not JSON");
    if (doc.contains("ConfigurationSpace")) return cutune::spec_from_kt_t1(doc, kt, o.input);
    return cutune::spec_from_kt_cache(doc, kt, o.input);
  }
  if (o.tune_params.empty()) {
    throw std::invalid_argument("import-kt: give a T1 or cache FILE, or --tune-params DICT");
  }
  if (o.problem_size.empty())
    throw std::invalid_argument("import-kt: --tune-params needs --problem-size");
  const std::string text =
      o.tune_params.front() == '@' ? read_text(o.tune_params.substr(1)) : o.tune_params;
  return cutune::spec_from_kt_tune_params(text, o.restrictions, o.problem_size, kt);
}

void run(const ImportOptions& o) {
  const std::string text = import_spec(o).dump(2) + "\n";
  if (o.output.empty() || o.output == "-") {
    fmt::print("{}", text);
    return;
  }
  cutune::cli::write_file(o.output, text);
  fmt::print("wrote {}\n", o.output);
  // Checked by the spec loader when the kernel source is there (relative to the spec).
  try {
    const cutune::KernelSpec spec = cutune::load_spec(o.output);
    fmt::print("spec {}: {} knobs; `cutune space {}` describes it\n", spec.name,
               spec.tuning->space.knob_count(), o.output);
  } catch (const std::exception& error) {
    if (std::string(error.what()).find("no such file") == std::string::npos) throw;
    fmt::print(
        "note: {}\nwrite the kernel source there (or pass --source), then `cutune space {}`\n",
        error.what(), o.output);
  }
}

}  // namespace

void cutune::cli::add_import_kt_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "import-kt",
      "Write a cutune spec from a Kernel Tuner description (tune script, T1 file, cache file, "
      "or tune_params and restrictions)");
  auto o = std::make_shared<ImportOptions>();
  command->add_option("file", o->input,
                      "A tune script (.py), a T1 input file or a Kernel Tuner cache file "
                      "(.json[.gz])");
  command->add_option("--reference", o->kt.reference,
                      "Tune scripts: a reference function of the kernel's source for outputs "
                      "whose answer the script computes in Python");
  command->add_option("--tune-params", o->tune_params,
                      "tune_params as a Python dict (\"{'block_size_x': [32, 64]}\"), or @FILE");
  command->add_option("--restriction", o->restrictions,
                      "A Kernel Tuner restriction string (repeatable)");
  command->add_option("--problem-size", o->problem_size, "problem_size: 1 to 3 integers")
      ->delimiter(',');
  command->add_option("--grid-div-x", o->grid_div_x, "grid_div_x knobs")->delimiter(',');
  command->add_option("--grid-div-y", o->grid_div_y, "grid_div_y knobs")->delimiter(',');
  command->add_option("--grid-div-z", o->grid_div_z, "grid_div_z knobs")->delimiter(',');
  command->add_option("--name", o->kt.name, "Spec name (default: the kernel name)");
  command->add_option("--source", o->kt.source, "Kernel source file, relative to the spec");
  command->add_option("--entry", o->kt.entry, "Kernel function (default: the kernel name)");
  command->add_option("-o,--output", o->output, "Write the spec here (default: stdout)");
  command->callback([o] { run(*o); });
}
