# cmake -DROOT=DIR -P one_reader.cmake: the single places docs/architecture.md promises, checked
# in the source: exported winners ("cutune-best") are written by src/store/export.cpp and read only
# by src/lookup/lookup_table.cpp (cutune::Runtime reads a store's winners through it too); problem texts are parsed only by src/lookup/problem_text.cpp;
# the Python package parses neither (it calls the C++ core).
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE sources ${ROOT}/src/*.cpp ${ROOT}/src/*.hpp ${ROOT}/src/*.cu ${ROOT}/tools/*.cpp
     ${ROOT}/python/*.cpp ${ROOT}/python/*.hpp ${ROOT}/python/*.py ${ROOT}/bench/*.cpp
     ${ROOT}/bench/*.py)
set(problems "")
function(only_in needle allowed)
  foreach(file IN LISTS sources)
    file(READ ${file} text)
    string(FIND "${text}" "${needle}" at)
    file(RELATIVE_PATH name ${ROOT} ${file})
    if(NOT at EQUAL -1 AND NOT name IN_LIST allowed)
      set(problems "${problems}\n  ${name} holds '${needle}' (only ${allowed} may)" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()
# The lookup bench writes its table in that format itself: a fixture, not a reader.
only_in("\"cutune-best\"" "src/store/export.cpp;src/lookup/lookup_table.cpp;bench/runtime/lookup_bench.cpp")
only_in("is not name=value" "src/lookup/problem_text.cpp")
file(GLOB_RECURSE package ${ROOT}/python/cutune/*.py)
foreach(file IN LISTS package)
  file(READ ${file} text)
  foreach(needle "split(\",\")" ".split(\"=\"" "[\"results\"]" "json.load(")
    string(FIND "${text}" "${needle}" at)
    if(NOT at EQUAL -1)
      string(APPEND problems "\n  ${file} parses for itself ('${needle}'): call the C++ core")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "one reader, one parser:${problems}")
endif()
