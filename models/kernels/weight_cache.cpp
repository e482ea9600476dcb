#include "models/kernels/weight_cache.h"

#include <algorithm>
#include <cstring>

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
#include <xxhash.h>

namespace ethosu::kernels {

WeightCache& WeightCache::shared() {
  static WeightCache cache;
  return cache;
}

WeightCache::Hash128 WeightCache::hash(const std::vector<ByteSpan>& key) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  for (const ByteSpan& part : key) {
    // The length too, so that moving bytes between parts changes the key.
    const uint64_t size = part.size;
    XXH3_128bits_update(&state, &size, sizeof size);
    if (part.size <= kWholeHashBytes) {
      if (part.size) XXH3_128bits_update(&state, part.data, part.size);
      continue;
    }
    // A long part by samples: every hit hashes its key again (an LSTM's cell looks its two streams up at every
    // time step), and the full compare that confirms a hit makes a sample as safe as the whole. The head and the
    // tail, and blocks spread evenly between them, tell distinct streams apart in practice.
    XXH3_128bits_update(&state, part.data, kSampleBlockBytes);
    const size_t stride = (part.size - kSampleBlockBytes) / kSampleBlocks;
    for (size_t i = 1; i < kSampleBlocks; ++i)
      XXH3_128bits_update(&state, part.data + i * stride, kSampleBlockBytes);
    XXH3_128bits_update(&state, part.data + part.size - kSampleBlockBytes, kSampleBlockBytes);
  }
  const XXH128_hash_t h = XXH3_128bits_digest(&state);
  return {h.low64, h.high64};
}

bool WeightCache::same_key(const std::vector<uint8_t>& stored, const std::vector<ByteSpan>& key) {
  size_t pos = 0;
  for (const ByteSpan& part : key) {
    const uint64_t size = part.size;
    if (stored.size() - pos < sizeof size + part.size) return false;
    if (std::memcmp(stored.data() + pos, &size, sizeof size) != 0) return false;
    pos += sizeof size;
    if (part.size && std::memcmp(stored.data() + pos, part.data, part.size) != 0) return false;
    pos += part.size;
  }
  return pos == stored.size();
}

std::shared_ptr<const ConvWeights> WeightCache::get(const std::vector<ByteSpan>& key,
                                                    const std::function<ConvWeights()>& make) {
  const Hash128 h = hash(key);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto range = index_.equal_range(h);
    for (auto it = range.first; it != range.second; ++it) {
      if (!same_key(it->second->key, key)) continue;
      ++stats_.hits;
      Entry& e = *it->second;
      if (!e.probation) {
        lru_.splice(lru_.begin(), lru_, it->second);
        return e.weights;
      }
      // A second use: into the cache, when it fits.
      probation_bytes_ -= e.bytes;
      e.probation = false;
      auto weights = e.weights;
      if (e.bytes > capacity_bytes_) {
        probation_.erase(it->second);
        index_.erase(it);
        return weights;
      }
      evict_to(capacity_bytes_ - e.bytes);
      bytes_ += e.bytes;
      lru_.splice(lru_.begin(), probation_, it->second);
      return weights;
    }
    ++stats_.misses;
  }
  // Decode without the lock: another thread may decode the same stream meanwhile; the first stored wins.
  auto weights = std::make_shared<const ConvWeights>(make());
  size_t key_bytes = 0;
  for (const ByteSpan& part : key) key_bytes += sizeof(uint64_t) + part.size;
  const size_t entry_bytes = key_bytes + weights->size_bytes();
  // An entry that cannot be kept is returned before its key is copied: that copy is as large as the stream, and
  // in a process that runs a job once (probation's 1 MB) it was fresh memory for every large stream.
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (entry_bytes > entry_limit()) return weights;
  }
  Entry e;
  e.hash = h;
  e.key.reserve(key_bytes);  // one allocation: a key holds whole weight streams
  for (const ByteSpan& part : key) {
    const uint64_t size = part.size;
    const auto* p = reinterpret_cast<const uint8_t*>(&size);
    e.key.insert(e.key.end(), p, p + sizeof size);
    if (part.size) e.key.insert(e.key.end(), part.data, part.data + part.size);
  }
  e.bytes = entry_bytes;
  e.weights = weights;
  const std::lock_guard<std::mutex> lock(mutex_);
  const size_t limit = entry_limit();
  if (e.bytes > limit) return weights;  // the limits may have changed meanwhile
  const auto range = index_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second->key == e.key) return it->second->weights;
  Lru& list = admit_on_reuse_ ? probation_ : lru_;
  size_t& list_bytes = admit_on_reuse_ ? probation_bytes_ : bytes_;
  evict(list, list_bytes, limit - e.bytes);
  e.probation = admit_on_reuse_;
  list_bytes += e.bytes;
  list.push_front(std::move(e));
  index_.emplace(h, list.begin());
  return weights;
}

void WeightCache::evict(Lru& list, size_t& list_bytes, size_t limit) {
  while (list_bytes > limit && !list.empty()) {
    const Entry& victim = list.back();
    const auto range = index_.equal_range(victim.hash);
    for (auto it = range.first; it != range.second; ++it) {
      if (&*it->second == &victim) {
        index_.erase(it);
        break;
      }
    }
    list_bytes -= victim.bytes;
    list.pop_back();
    ++stats_.evictions;
  }
}

WeightCache::Stats WeightCache::stats() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  Stats s = stats_;
  s.entries = lru_.size() + probation_.size();
  s.bytes = bytes_ + probation_bytes_;
  return s;
}

void WeightCache::set_capacity_bytes(size_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  capacity_bytes_ = bytes;
  evict_to(bytes);
  evict(probation_, probation_bytes_, std::min(kProbationBytes, bytes));
}

void WeightCache::set_admit_on_reuse(bool on) {
  const std::lock_guard<std::mutex> lock(mutex_);
  admit_on_reuse_ = on;
  if (!on) evict(probation_, probation_bytes_, 0);
}

void WeightCache::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  evict_to(0);
  evict(probation_, probation_bytes_, 0);
}

}  // namespace ethosu::kernels
