# Run by the docs.quick_start test (cmake -P): the README's quick-start code
# block must be examples/quick_start.cpp verbatim, so that what users copy is
# what the test suite compiles and runs. Arguments: README, SOURCE.
file(READ "${README}" readme)
file(READ "${SOURCE}" source)
string(FIND "${readme}" "${source}" position)
if(position EQUAL -1)
  message(FATAL_ERROR "${README} does not contain ${SOURCE} verbatim; paste the file into the quick start")
endif()
