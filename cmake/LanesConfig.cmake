# find_package(Lanes) finds this file: in an installed lanes at
# <prefix>/lib/cmake/Lanes/, or in a lanes checkout's cmake/ folder (point
# Lanes_DIR or CMAKE_PREFIX_PATH at it). It defines LANES_EXECUTABLE and
# lanes_add_kernels(); see Lanes.cmake.
include("${CMAKE_CURRENT_LIST_DIR}/Lanes.cmake")
