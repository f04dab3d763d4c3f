# cmake -DINPUT=file -DOUTPUT=file.cpp -DNAME=function -P embed_resource.cmake: writes a C++ file
# defining std::string_view cutune::report::NAME() that returns the input's bytes.
file(READ "${INPUT}" content)
set(delimiter "cutune_embed")
string(FIND "${content}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ${delimiter}")
endif()
# Raw string literals of more than 64 KiB are fine for GCC and Clang; chunks keep each well below.
string(LENGTH "${content}" length)
set(body "")
set(chunk 16000)
foreach(offset RANGE 0 ${length} ${chunk})
  string(SUBSTRING "${content}" ${offset} ${chunk} piece)
  string(APPEND body "R\"${delimiter}(${piece})${delimiter}\"\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by embed_resource.cmake.\n#include <string_view>\n\
namespace cutune::report {\nstd::string_view ${NAME}() {\n  static constexpr char text[] =\n${body};\n\
  return {text, sizeof text - 1};\n}\n}  // namespace cutune::report\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
