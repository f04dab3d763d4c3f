# cmake -DROOT=DIR -P asks_capabilities.cmake: the store asks its database what it can
# (Database::capabilities(), src/store/database.hpp), never which database it is: no source outside
# the two databases' own files names a dialect or tests for one.
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE sources ${ROOT}/src/*.cpp ${ROOT}/src/*.hpp ${ROOT}/include/*.hpp
     ${ROOT}/tools/*.cpp ${ROOT}/tools/*.hpp)
set(allowed src/store/sqlite_database.cpp src/store/postgres_database.cpp)
set(problems "")
foreach(file IN LISTS sources)
  file(RELATIVE_PATH name ${ROOT} ${file})
  if(name IN_LIST allowed)
    continue()
  endif()
  file(STRINGS ${file} hits REGEX "Dialect|dialect\\(\\)")
  foreach(line IN LISTS hits)
    string(APPEND problems "\n  ${name}: ${line}")
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "the database's kind is tested where it is used; ask capabilities():${problems}")
endif()
