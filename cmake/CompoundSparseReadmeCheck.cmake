# Run by the docs.quick_start test (cmake -P): the README's quick-start code
# block must be examples/quick_start.cpp verbatim, so that what users copy is
# what the test suite compiles and runs. Arguments: README, SOURCE.
#
# With LINKS (a ;-list of Markdown files) instead, it checks that every relative
# link in those files names a file or folder that exists (anchors are not
# checked), e.g.
#   cmake -DLINKS="README.md;docs/gpu.md" -P cmake/CompoundSparseReadmeCheck.cmake
if(DEFINED LINKS)
  set(broken "")
  foreach(md IN LISTS LINKS)
    file(READ "${md}" text)
    # Code (fenced and inline) holds no links, only text that looks like them.
    string(REGEX REPLACE "```[^`]*```" "" text "${text}")
    string(REGEX REPLACE "`[^`\n]*`" "" text "${text}")
    # Brackets and semicolons are list syntax to CMake: spell them otherwise first.
    string(REPLACE ";" "," text "${text}")
    string(REPLACE "[" "<" text "${text}")
    string(REPLACE "]" ">" text "${text}")
    get_filename_component(dir "${md}" DIRECTORY)
    if(dir STREQUAL "")
      set(dir .)
    endif()
    string(REGEX MATCHALL ">\\([^)# \t\n]*[)#]" targets "${text}")
    foreach(target IN LISTS targets)
      string(REGEX REPLACE "^>\\((.*)[)#]$" "\\1" path "${target}")
      if(path STREQUAL "" OR path MATCHES "^[a-z]+:")
        continue()  # an anchor in the same file, or a URL
      endif()
      if(NOT EXISTS "${dir}/${path}")
        list(APPEND broken "${md}: ${path}")
      endif()
    endforeach()
  endforeach()
  if(broken)
    list(JOIN broken "\n  " broken)
    message(FATAL_ERROR "links to files that do not exist:\n  ${broken}")
  endif()
  return()
endif()

file(READ "${README}" readme)
file(READ "${SOURCE}" source)
string(FIND "${readme}" "${source}" position)
if(position EQUAL -1)
  message(FATAL_ERROR "${README} does not contain ${SOURCE} verbatim; paste the file into the quick start")
endif()
