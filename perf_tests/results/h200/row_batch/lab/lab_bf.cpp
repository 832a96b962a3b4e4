#include "row_lab.hpp"
void run_block_float(const char* name, const cs::HostCsr<cs::Block<double, 3>>& a) {
  run_matrix(name, "float", narrowed<cs::Block<float, 3>>(a));
}
