#pragma once
// Measurement: one SpMV variant timed on one matrix, or its SpMM with k vectors. The one record shared by the
// measurer (measure.hpp), compound-tune, compound-bench and the tuning database,
// which stores it as it is.

#include <cstdint>
#include <string>

#include "../variants/variant_key.hpp"

namespace compound_sparse {

struct Measurement {
  /// VariantKey::name(). Kept as text: a database may name variants that this build
  /// does not know (another version's), and selection skips those; key() parses it.
  std::string variant;
  /// Vectors per product: 1 for the SpMV, k > 1 for the SpMM with k vectors (the key's
  /// vector layout is then the multivector layout, registry.hpp). `seconds` is per
  /// product, all k vectors. Stored as "k" when above 1 (absent: 1).
  int k = 1;
  bool ok = false;     ///< ran and matched the reference
  std::string error;   ///< why not, when !ok
  double seconds = 0;  ///< median time per product
  double min_seconds = 0;
  double max_seconds = 0;
  double relative_error = 0;       ///< ||y - ref|| / ||ref|| (component 2-norm)
  std::uint64_t memory_bytes = 0;  ///< the matrix layout's device memory
  int rotation = 1;                ///< data copies cycled while timing (not stored in the database)
  bool retimed = false;            ///< timed again with the full timing (compound-tune's near-best candidates)
  /// Stopped after its first timed batch, being over MeasureOptions::drop_slower_than
  /// times the fastest so far: ok, and seconds (= min = max) is that one batch's time
  /// per launch, a real but single sample. Stored as "dropped": true (absent: false).
  bool dropped = false;
  /// Not run: refused before any conversion because the layout is over the memory
  /// budget or the padding bound (a BudgetExceeded error, in `error`). Not stored in
  /// the database (the error says why).
  bool refused = false;

  /// The variant as a key; throws compound_sparse::InvalidInput for a name this build does not know.
  VariantKey key() const { return parse_variant_key(variant); }
  /// Whether this is a time to compare at `vectors` vectors: ran correctly, a positive time,
  /// k == vectors. A record's SpMV (1) and SpMM (k > 1) measurements share variant names, so
  /// whoever compares times says which k.
  bool timed_at(int vectors) const { return ok && seconds > 0 && k == vectors; }
};

}  // namespace compound_sparse
