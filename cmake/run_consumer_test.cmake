# Packaging test driver, run as `cmake -D... -P run_consumer_test.cmake`.
#
#   TL_CONSUMER_MODE         find_package | fetchcontent
#   TL_CONSUMER_SOURCE_DIR   the consumer project
#   TL_CONSUMER_BINARY_DIR   scratch build directory (wiped first)
#   TL_CONSUMER_PREFIX       (find_package) install prefix (wiped first)
#   TL_TOP_BINARY_DIR        (find_package) tl build tree to install from
#   TL_SOURCE_DIR            (fetchcontent) tl source tree
#   TL_CONSUMER_GENERATOR, TL_CONSUMER_MAKE_PROGRAM, TL_CONSUMER_CXX_COMPILER,
#   TL_CONSUMER_CONFIG       forwarded from the parent build (optional)

cmake_minimum_required(VERSION 3.25)

foreach(var TL_CONSUMER_MODE TL_CONSUMER_SOURCE_DIR TL_CONSUMER_BINARY_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer_test.cmake: ${var} is not set")
  endif()
endforeach()

if(NOT TL_CONSUMER_CONFIG)
  set(TL_CONSUMER_CONFIG Release)
endif()

set(configure_args -S "${TL_CONSUMER_SOURCE_DIR}" -B "${TL_CONSUMER_BINARY_DIR}"
  "-DCMAKE_BUILD_TYPE=${TL_CONSUMER_CONFIG}")
if(TL_CONSUMER_GENERATOR)
  list(APPEND configure_args -G "${TL_CONSUMER_GENERATOR}")
endif()
if(TL_CONSUMER_MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${TL_CONSUMER_MAKE_PROGRAM}")
endif()
if(TL_CONSUMER_CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${TL_CONSUMER_CXX_COMPILER}")
endif()

file(REMOVE_RECURSE "${TL_CONSUMER_BINARY_DIR}")

if(TL_CONSUMER_MODE STREQUAL "find_package")
  foreach(var TL_CONSUMER_PREFIX TL_TOP_BINARY_DIR)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "run_consumer_test.cmake: ${var} is not set")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${TL_CONSUMER_PREFIX}")
  message(STATUS "Installing tl from ${TL_TOP_BINARY_DIR} into ${TL_CONSUMER_PREFIX}")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" --install "${TL_TOP_BINARY_DIR}"
            --prefix "${TL_CONSUMER_PREFIX}" --config "${TL_CONSUMER_CONFIG}"
    COMMAND_ERROR_IS_FATAL ANY)
  list(APPEND configure_args
    "-DCMAKE_PREFIX_PATH=${TL_CONSUMER_PREFIX}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
elseif(TL_CONSUMER_MODE STREQUAL "fetchcontent")
  if(NOT TL_SOURCE_DIR)
    message(FATAL_ERROR "run_consumer_test.cmake: TL_SOURCE_DIR is not set")
  endif()
  list(APPEND configure_args
    "-DTL_SOURCE_DIR=${TL_SOURCE_DIR}"
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
else()
  message(FATAL_ERROR "run_consumer_test.cmake: unknown TL_CONSUMER_MODE '${TL_CONSUMER_MODE}'")
endif()

message(STATUS "Configuring consumer: ${TL_CONSUMER_SOURCE_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" ${configure_args} COMMAND_ERROR_IS_FATAL ANY)

if(TL_CONSUMER_MODE STREQUAL "find_package")
  # Make sure the package really came from the prefix we just installed.
  file(STRINGS "${TL_CONSUMER_BINARY_DIR}/CMakeCache.txt" tl_dir_line REGEX "^tl_DIR:")
  string(REGEX REPLACE "^tl_DIR:[A-Z]+=" "" tl_dir "${tl_dir_line}")
  file(REAL_PATH "${tl_dir}" tl_dir)
  file(REAL_PATH "${TL_CONSUMER_PREFIX}" prefix_real)
  string(FIND "${tl_dir}" "${prefix_real}/" pos)
  if(NOT pos EQUAL 0)
    message(FATAL_ERROR "tl was found in '${tl_dir}', not under '${prefix_real}'")
  endif()
  message(STATUS "tl package found in ${tl_dir}")
endif()

message(STATUS "Building consumer")
execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${TL_CONSUMER_BINARY_DIR}" --config "${TL_CONSUMER_CONFIG}"
  COMMAND_ERROR_IS_FATAL ANY)

set(exe "")
foreach(candidate
    "${TL_CONSUMER_BINARY_DIR}/consumer"
    "${TL_CONSUMER_BINARY_DIR}/consumer.exe"
    "${TL_CONSUMER_BINARY_DIR}/${TL_CONSUMER_CONFIG}/consumer"
    "${TL_CONSUMER_BINARY_DIR}/${TL_CONSUMER_CONFIG}/consumer.exe")
  if(EXISTS "${candidate}")
    set(exe "${candidate}")
    break()
  endif()
endforeach()
if(exe STREQUAL "")
  message(FATAL_ERROR "consumer executable not found in ${TL_CONSUMER_BINARY_DIR}")
endif()

message(STATUS "Running ${exe}")
execute_process(COMMAND "${exe}" COMMAND_ERROR_IS_FATAL ANY)
message(STATUS "Consumer (${TL_CONSUMER_MODE}) OK")
