#include "row_lab.hpp"
void run_block_double(const char* name, const cs::HostCsr<cs::Block<double, 3>>& a) {
  run_matrix(name, "double", a);
}
