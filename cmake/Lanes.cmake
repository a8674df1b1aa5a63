# OpenCL C kernels compiled by lanes into SIMD objects and C headers at build
# time, and linked into a CMake target.
#
#   find_package(Lanes REQUIRED)        # or include(<lanes>/cmake/Lanes.cmake)
#   add_executable(app main.c)
#   lanes_add_kernels(app
#     SOURCES kernels/blur.cl kernels/scan.cl
#     TARGETS avx2-i32x8                # default: host (the build machine's CPU);
#                                       # several (sse4-i32x4,avx2-i32x8,avx512skx-x16 or a
#                                       # CMake list): one object running the best the CPU has
#     DEFINES RADIUS=2 USE_FAST_PATH    # -D for lanes build
#     INCLUDE_DIRS kernels/include)     # -I for lanes build
#
# Each SOURCE becomes <build dir>/lanes/<target>/<name>.o, linked into the
# target, and <name>.h, on the target's include path (#include "blur.h").
# The object is rebuilt when the .cl file, a file it #includes (lanes writes
# a depfile), its lanes.toml or the lanes executable changes.
#
# LANES_EXECUTABLE: the lanes binary (found next to an installed copy of this
# file, in a checkout's target/release or target/debug, or on PATH).

include_guard(GLOBAL)
# DEPFILE for the Makefile generators needs 3.20.
cmake_minimum_required(VERSION 3.20)

if(NOT LANES_EXECUTABLE)
  find_program(LANES_EXECUTABLE lanes
    HINTS
      "${CMAKE_CURRENT_LIST_DIR}/../../../bin"
      "${CMAKE_CURRENT_LIST_DIR}/../target/release"
      "${CMAKE_CURRENT_LIST_DIR}/../target/debug"
    DOC "The lanes compiler")
endif()
if(NOT LANES_EXECUTABLE)
  message(FATAL_ERROR "lanes: no `lanes` executable found; set LANES_EXECUTABLE")
endif()

function(lanes_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;DEFINES;INCLUDE_DIRS;TARGETS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "lanes_add_kernels(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "lanes_add_kernels(${target}): `${target}` is not a target")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "lanes_add_kernels(${target}): no SOURCES")
  endif()
  # `a,b` and the CMake list `a;b` both name a multi-target object (lanes
  # checks the names when it builds).
  list(JOIN ARG_TARGETS "," simd)
  if(NOT simd)
    set(simd host)
  endif()

  set(flags --target ${simd})
  foreach(d IN LISTS ARG_DEFINES)
    list(APPEND flags "-D${d}")
  endforeach()
  foreach(i IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(dir "${i}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags "-I${dir}")
  endforeach()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/lanes/${target}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(names "")
  foreach(s IN LISTS ARG_SOURCES)
    get_filename_component(src "${s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${s}" NAME_WE)
    if(name IN_LIST names)
      message(FATAL_ERROR "lanes_add_kernels(${target}): two sources named `${name}`: their objects and headers would collide")
    endif()
    list(APPEND names "${name}")
    set(obj "${out_dir}/${name}.o")
    set(hdr "${out_dir}/${name}.h")
    set(dep "${out_dir}/${name}.d")
    add_custom_command(
      OUTPUT "${obj}" "${hdr}"
      COMMAND "${LANES_EXECUTABLE}" build "${src}" -o "${obj}" --header "${hdr}"
              --depfile "${dep}" ${flags}
      DEPENDS "${src}" "${LANES_EXECUTABLE}"
      DEPFILE "${dep}"
      COMMENT "lanes: building ${name}.o for ${simd}"
      VERBATIM)
    set_source_files_properties("${obj}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_sources(${target} PRIVATE "${obj}" "${hdr}")
  endforeach()
  target_include_directories(${target} PRIVATE "${out_dir}")
endfunction()
