#pragma once
// CompoundSparse: sparse matrix products with compound entries on Kokkos. This header brings
// the whole core API; the folders below include/compound_sparse/ hold one concept each:
//
//   entries/    complex, quaternion and block entries, mixed precision, your own types
//   layouts/    HostCsr, the device layouts and their conversion, vectors, reordering
//   fem/        finite-element meshes, patterns and assembly on the device
//   schedules/  how a product's work is split among threads
//   products/   spmv, spmm, op(A), the host reference
//   variants/   variant names and the registry of the compiled variants
//   tuning/     TunedSpmv: the tuning database, selection and quick tuning
//   io/, interop/, distributed/, zoo/   files, Kokkos Kernels, MPI, test matrices
//                                       (include those headers where you need them)

#include "compound_sparse/device_info.hpp"
#include "compound_sparse/entries/block.hpp"
#include "compound_sparse/entries/mixed_precision.hpp"
#include "compound_sparse/entries/quaternion.hpp"
#include "compound_sparse/error.hpp"
#include "compound_sparse/fem/lagrange_assembly.hpp"
#include "compound_sparse/fem/p2_elements.hpp"
#include "compound_sparse/fem/p2_pattern.hpp"
#include "compound_sparse/fem/problems.hpp"
#include "compound_sparse/fem/tuned_assembly.hpp"
#include "compound_sparse/layouts/convert.hpp"
#include "compound_sparse/layouts/coo_assembly.hpp"
#include "compound_sparse/layouts/device_csr.hpp"
#include "compound_sparse/layouts/device_csr_from_coo.hpp"
#include "compound_sparse/layouts/refresh.hpp"
#include "compound_sparse/layouts/reordering.hpp"
#include "compound_sparse/products/reference.hpp"
#include "compound_sparse/products/spmm.hpp"
#include "compound_sparse/products/spmv.hpp"
#include "compound_sparse/products/transpose.hpp"
#include "compound_sparse/schedules/schedule.hpp"
#include "compound_sparse/tuning/device_features.hpp"
#include "compound_sparse/tuning/tuned_spmv.hpp"
#include "compound_sparse/variants/variant_key.hpp"
#include "compound_sparse/warnings.hpp"
