# Debian's xsimd 8.x package config lists a plain `xtl` in the INTERFACE_LINK_LIBRARIES
# of the imported `xsimd` target but never finds xtl, so consumers end up linking with
# `-lxtl` and fail. xsimd only needs xtl for optional features, so: if xsimd refers to
# `xtl` and no such target exists, try to find xtl, and otherwise provide an empty
# interface target in its place.
if(TARGET xsimd AND NOT TARGET xtl)
  get_target_property(_tl_xsimd_links xsimd INTERFACE_LINK_LIBRARIES)
  if(_tl_xsimd_links AND "xtl" IN_LIST _tl_xsimd_links)
    find_package(xtl QUIET CONFIG)
    if(NOT TARGET xtl)
      add_library(xtl INTERFACE IMPORTED)
    endif()
  endif()
  unset(_tl_xsimd_links)
endif()
