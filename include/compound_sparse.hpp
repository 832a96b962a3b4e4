#pragma once
// CompoundSparse: sparse matrix-vector products with compound entries on Kokkos.
// Include this header for the whole public API.

#include "compound_sparse/block.hpp"
#include "compound_sparse/compound_vector.hpp"
#include "compound_sparse/convert.hpp"
#include "compound_sparse/device_info.hpp"
#include "compound_sparse/entry_traits.hpp"
#include "compound_sparse/error.hpp"
#include "compound_sparse/host_csr.hpp"
#include "compound_sparse/layouts.hpp"
#include "compound_sparse/multi_vector.hpp"
#include "compound_sparse/tuning/measure.hpp"
#include "compound_sparse/quaternion.hpp"
#include "compound_sparse/reference.hpp"
#include "compound_sparse/schedule.hpp"
#include "compound_sparse/sparse_matrix.hpp"
#include "compound_sparse/spmm.hpp"
#include "compound_sparse/spmv.hpp"
#include "compound_sparse/transpose.hpp"
#include "compound_sparse/tuning/timing.hpp"
#include "compound_sparse/variant_key.hpp"
#include "compound_sparse/warnings.hpp"
