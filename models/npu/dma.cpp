#include "models/npu/dma.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/functional/dma.h"

namespace ethosu::npu {

Dma::Dma(const sc_core::sc_module_name& name, mem::AxiPort& axi0, mem::AxiPort& axi1, const ControlRegisters& ctrl,
         Shram& shram)
    : sc_module(name), axi0_(axi0), axi1_(axi1), ctrl_(ctrl), shram_(shram) {}

void Dma::begin_stream(uint64_t cycle, const functional::Regions& regions) {
  regions_ = regions;
  queue_.clear();
  free_at_ = cycle;
  host_copy_seconds_ = 0;
}

std::optional<BlockFault> Dma::check(uint32_t offset, const isa::Operation& op) const {
  const auto& d = op.dma;
  // Bounds, as the AXI ports (external) or the SHRAM (internal) would enforce them.
  auto inside = [&](const isa::DmaEndpoint& e) {
    const isa::Span s = isa::dma_span(d, e);
    if (s.empty()) return true;
    const uint64_t size = e.internal() ? shram_.bytes_per_core() : regions_[e.region].size_bytes;
    return s.lo >= 0 && static_cast<uint64_t>(s.hi) <= size && (e.internal() || regions_[e.region].data);
  };
  if (!inside(d.src))
    return BlockFault{Fault::BUS_ERROR,
                      isa::hex_offset(offset) + ": NPU_OP_DMA_START source outside region " + std::to_string(d.src.region),
                      ctrl_.region_port(d.src.region), Channel::RD_MEM2MEM};
  if (!inside(d.dst))
    return BlockFault{Fault::BUS_ERROR,
                      isa::hex_offset(offset) + ": NPU_OP_DMA_START destination outside region " +
                          std::to_string(d.dst.region),
                      d.dst.internal() ? 0 : ctrl_.region_port(d.dst.region), Channel::WR_MEM2MEM};
  return std::nullopt;
}

OpRecord Dma::start(uint32_t offset, const isa::Operation& op, uint64_t& cc_cycle) {
  if (queue_.size() >= timing_.queue_depth) {
    cc_cycle = std::max(cc_cycle, queue_.front().done_cycle);
    land_front();
  }
  const auto& d = op.dma;
  OpRecord rec;
  rec.offset = offset;
  rec.kind = "DMA";
  rec.start_cycle = std::max(cc_cycle, free_at_);
  const uint64_t bytes = d.total_bytes();
  const auto run = static_cast<uint32_t>(d.length_bytes);
  uint64_t first_data = rec.start_cycle, read_done = rec.start_cycle;
  if (!d.src.internal() && bytes) {
    const unsigned p = ctrl_.region_port(d.src.region), lim = ctrl_.region_limiter(d.src.region) & 1;
    mem::AxiPortTiming& t = port(p).timing();
    const mem::Completion c = t.read(rec.start_cycle, bytes, run, mem::Client::DMA_SRC, lim);
    read_done = c.complete_cycle;
    first_data = c.first_data_done_cycle;
    rec.ports[p].read_bytes[static_cast<size_t>(Traffic::DMA_SRC)] += bytes;
  }
  uint64_t done = read_done;
  if (!d.dst.internal() && bytes) {
    const unsigned p = ctrl_.region_port(d.dst.region), lim = ctrl_.region_limiter(d.dst.region) & 1;
    mem::AxiPortTiming& t = port(p).timing();
    const mem::Completion c = t.write(first_data, bytes, run, mem::Client::DMA_DST, lim);
    // The last burst can only be written once the last read data is in, and is done at its response.
    const uint64_t last_burst = std::min<uint64_t>(bytes, t.params().limiters[lim].burst_split_bytes);
    const uint64_t tail = read_done + static_cast<uint64_t>(std::ceil(double(last_burst) / t.params().bytes_per_cycle)) +
                          t.params().write_latency_cycles;
    done = std::max(c.complete_cycle, tail);
    rec.ports[p].write_bytes[static_cast<size_t>(Traffic::DMA_DST)] += bytes;
  }
  free_at_ = done;
  rec.end_cycle = done;
  queue_.push_back({op, done});
  if (trace_)
    trace_->complete(track_, rec.kind, "dma", clock_.ps(rec.start_cycle), clock_.ps(rec.end_cycle) - clock_.ps(rec.start_cycle),
                     {{"offset", rec.offset}, {"cycles", rec.cycles()}, {"bytes", bytes}});
  return rec;
}

void Dma::land_front() {
  const auto& d = queue_.front().op.dma;
  auto& banks = shram_.banks();
  const auto t0 = std::chrono::steady_clock::now();
  const uint8_t* src = d.src.internal() ? banks.front().data() : regions_[d.src.region].data;
  if (d.dst.internal()) {
    for (unsigned c = 0; c < banks.size(); ++c)
      if (d.dst.region & (1u << c)) functional::copy_dma(d, src, banks[c].data());
  } else {
    functional::copy_dma(d, src, regions_[d.dst.region].data);
  }
  host_copy_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  queue_.pop_front();
}

void Dma::land_until(uint64_t cycle) {
  while (!queue_.empty() && queue_.front().done_cycle <= cycle) land_front();
}

void Dma::wait(size_t max_outstanding, uint64_t& cc_cycle) {
  while (queue_.size() > max_outstanding) {
    cc_cycle = std::max(cc_cycle, queue_.front().done_cycle);
    land_front();
  }
}

void Dma::land_all() {
  while (!queue_.empty()) land_front();
}

}  // namespace ethosu::npu
