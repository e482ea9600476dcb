// A process-wide cache of decoded, packed weights, keyed by content, so that each distinct weight stream
// is decoded once per process: across the operations of a job that reuse a stream (an LSTM's cell runs
// the same two streams every time step) and across runs of a loaded job (Python, the driver shims).
//
// Contract: get() looks up the exact key bytes (the caller's concatenation of the decode parameters and
// the compressed streams, passed as pieces so they are never copied on a hit): a 128-bit XXH3 hash (of
// samples of long pieces) finds the entry, a full compare with the stored key confirms it, so a hash
// collision can never return another stream's weights. On a miss make() decodes; what it throws
// propagates and nothing is stored.
// Entries are immutable and shared, so an entry evicted while an operation still uses it stays valid.
// The cache holds at most capacity_bytes (key copies plus packed weights) and evicts the least
// recently used entries; an entry larger than the capacity is returned but not kept. Thread-safe.
// With admit_on_reuse, an entry enters on probation: a list of at most kProbationBytes whose least recently
// used entries are dropped as others come, and from which a second get() promotes it into the cache. For a
// process that runs one job once (the CLI's `run`): weights an operation uses once are then freed soon after it,
// and their memory serves later operations instead of fresh memory, which costs a page fault and a zero-fill
// (MobileNetV2: peak memory 32 -> 24 MB), while a stream reused within the job (an LSTM's) is still decoded once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "models/kernels/conv.h"

namespace ethosu::kernels {

struct ByteSpan {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

class WeightCache {
 public:
  static constexpr size_t kDefaultCapacityBytes = size_t{256} << 20;
  static constexpr size_t kProbationBytes = size_t{1} << 20;
  // Key parts up to kWholeHashBytes are hashed whole, longer ones by kSampleBlocks + 1 blocks of
  // kSampleBlockBytes (the full compare confirms every hit either way).
  static constexpr size_t kWholeHashBytes = 4096, kSampleBlocks = 32, kSampleBlockBytes = 64;

  explicit WeightCache(size_t capacity_bytes = kDefaultCapacityBytes) : capacity_bytes_(capacity_bytes) {}
  // The cache every OpRunner of the process shares.
  static WeightCache& shared();

  std::shared_ptr<const ConvWeights> get(const std::vector<ByteSpan>& key, const std::function<ConvWeights()>& make);

  struct Stats {
    uint64_t hits = 0, misses = 0, evictions = 0;
    size_t entries = 0, bytes = 0;
  };
  Stats stats() const;
  // Shrinking evicts at once; 0 disables caching.
  void set_capacity_bytes(size_t bytes);
  void set_admit_on_reuse(bool on);
  void clear();

 private:
  struct Hash128 {
    uint64_t lo = 0, hi = 0;
    bool operator==(const Hash128& o) const { return lo == o.lo && hi == o.hi; }
  };
  struct HashOfHash {
    size_t operator()(const Hash128& h) const { return static_cast<size_t>(h.lo); }
  };
  struct Entry {
    Hash128 hash;
    std::vector<uint8_t> key;
    std::shared_ptr<const ConvWeights> weights;
    size_t bytes = 0;
    bool probation = false;
  };
  using Lru = std::list<Entry>;  // most recently used first

  static Hash128 hash(const std::vector<ByteSpan>& key);
  static bool same_key(const std::vector<uint8_t>& stored, const std::vector<ByteSpan>& key);
  // With the mutex held: drops the least recently used entries of `list` until its bytes are at most `limit`.
  void evict(Lru& list, size_t& list_bytes, size_t limit);
  void evict_to(size_t bytes) { evict(lru_, bytes_, bytes); }
  // With the mutex held: the most a new entry may hold to be stored (on probation, or in the cache).
  size_t entry_limit() const { return admit_on_reuse_ ? std::min(kProbationBytes, capacity_bytes_) : capacity_bytes_; }

  mutable std::mutex mutex_;
  size_t capacity_bytes_;
  size_t bytes_ = 0;
  Lru lru_;
  Lru probation_;  // admit_on_reuse: entries used once, most recent first
  size_t probation_bytes_ = 0;
  std::unordered_multimap<Hash128, Lru::iterator, HashOfHash> index_;
  Stats stats_;
  bool admit_on_reuse_ = false;
};

}  // namespace ethosu::kernels
