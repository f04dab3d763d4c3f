# cmake -DROOT=DIR -P front_folders.cmake: the folders that only use the engine reach it through its
# public headers (docs/architecture.md). A source of these folders includes `cutune/...`, its own
# folder's headers, and system or package headers; never another folder's private header under
# src/ (nor one above its own folder by a relative path). tools/cutune has the same rule in
# tests/tools/cli_is_thin.cmake.
cmake_minimum_required(VERSION 3.25)
set(front_folders src/strategy_bench src/report src/kt src/search src/surrogate)
set(problems "")
foreach(folder IN LISTS front_folders)
  get_filename_component(own ${folder} NAME)
  file(GLOB sources ${ROOT}/${folder}/*)
  foreach(file IN LISTS sources)
    file(RELATIVE_PATH name ${ROOT} ${file})
    file(STRINGS ${file} includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([^\"]*)\".*" "\\1" header "${line}")
      if(header MATCHES "^cutune/" OR header MATCHES "^${own}/" OR NOT header MATCHES "/")
        continue()
      endif()
      string(APPEND problems "\n  ${name}: ${line} (another folder's private header)")
    endforeach()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "a front folder includes past the public headers:${problems}")
endif()
