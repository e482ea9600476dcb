#include "models/npu/pipeline.h"

#include <algorithm>

namespace ethosu::npu {

namespace {

using mem::Client;

struct Access {
  mem::AxiPortTiming* port;
  unsigned port_index;
  unsigned limiter;
};

Access access_for(const PipelineUnits& u, unsigned region) {
  const unsigned p = u.region_port[region & 7];
  return {u.ports[p], p, u.region_limiter[region & 7]};
}

void count(OpTiming& t, unsigned port, Traffic cls, uint64_t bytes, bool write) {
  auto& pt = t.ports[port];
  (write ? pt.write_bytes : pt.read_bytes)[static_cast<size_t>(cls)] += bytes;
}

uint64_t wait_for(uint64_t ready, uint64_t free_at) { return ready > free_at ? ready - free_at : 0; }

}  // namespace

OpTiming schedule(const isa::Operation& op, const timing::OpWork& work, uint64_t ready, PipelineUnits& u,
                  std::vector<BlockStages>* stages) {
  OpTiming t;
  const size_t n = work.block_count();
  t.block_done.resize(n);
  t.start_cycle = ready;
  const bool uses_mac = op.kind != isa::OpKind::ELEMENTWISE;
  const Access ifm = access_for(u, op.ifm.region), ifm2 = access_for(u, op.ifm2.region),
               ofm = access_for(u, op.ofm.region), wgt = access_for(u, op.weight_region),
               scl = access_for(u, op.scale_region);
  // Times of blocks i-1 and i-2 for the double buffers.
  std::array<uint64_t, 2> ib_free{ready, ready}, acc_free{ready, ready}, ob_free{ready, ready};
  uint64_t wbuf_free = ready;  // weight buffer: refilled for block i while the MAC works on i-1
  uint64_t last_done = ready;

  for (size_t i = 0; i < n; ++i) {
    const timing::BlockWork b = work.block(i);
    const size_t slot = i & 1;
    t.macs += b.macs;

    // IFM (and IFM2) into the input buffer half this block uses.
    uint64_t ifm_req = std::max(ready, ib_free[slot]);
    uint64_t in_done = ifm_req;
    if (b.ifm_bytes) {
      in_done = ifm.port->read(ifm_req, b.ifm_bytes, b.ifm_run_bytes, Client::IFM, ifm.limiter).complete_cycle;
      count(t, ifm.port_index, Traffic::IFM, b.ifm_bytes, false);
    }
    if (b.ifm2_bytes) {
      const uint64_t d =
          ifm2.port->read(ifm_req, b.ifm2_bytes, b.ifm2_run_bytes, Client::IFM2, ifm2.limiter).complete_cycle;
      in_done = std::max(in_done, d);
      count(t, ifm2.port_index, Traffic::IFM2, b.ifm2_bytes, false);
    }

    // Weights: fetched and decoded into the free weight buffer; the MAC consumes them as they come.
    uint64_t weights_ready = ifm_req, wd_start = ifm_req;
    if (b.total_weight_bytes()) {
      // The WD decodes as the stream arrives: it starts on the first burst and cannot finish before the last.
      uint64_t first_in = UINT64_MAX, fetched = wbuf_free;
      for (unsigned core = 0; core < timing::kMaxCores; ++core) {
        if (!b.weight_bytes[core]) continue;
        const auto c = wgt.port->read(std::max(ready, wbuf_free), b.weight_bytes[core], 0, Client::WEIGHTS,
                                      wgt.limiter);
        first_in = std::min(first_in, c.first_data_done_cycle);
        fetched = std::max(fetched, c.complete_cycle);
        count(t, wgt.port_index, Traffic::WEIGHTS, b.weight_bytes[core], false);
      }
      first_in = std::max(first_in, wbuf_free);
      wd_start = std::max(first_in, u.wd->free_at);
      weights_ready = std::max(u.wd->run(first_in, b.wd_cycles), fetched);
      t.wd_busy += b.wd_cycles;
    }
    uint64_t scales_ready = ifm_req;
    if (b.total_scale_bytes()) {
      for (unsigned core = 0; core < timing::kMaxCores; ++core) {
        if (!b.scale_bytes[core]) continue;
        scales_ready = std::max(
            scales_ready, scl.port->read(ifm_req, b.scale_bytes[core], 0, Client::SCALES, scl.limiter).complete_cycle);
        count(t, scl.port_index, Traffic::SCALES, b.scale_bytes[core], false);
      }
    }

    uint64_t ao_ready, mac_begin = in_done;
    if (uses_mac) {
      // The MAC starts when its IFM is in and an accumulator buffer is free; decoded weights stream in
      // alongside, so a slow decoder stretches the MAC's work rather than delaying its start.
      const uint64_t mac_ready = std::max(in_done, acc_free[slot]);
      const uint64_t mac_start = std::max(mac_ready, u.mac->free_at);
      t.stalls[static_cast<size_t>(Stall::MAC_WAIT_IFM)] += wait_for(in_done, std::max(u.mac->free_at, acc_free[slot]));
      t.stalls[static_cast<size_t>(Stall::MAC_WAIT_ACC)] += wait_for(acc_free[slot], std::max(u.mac->free_at, in_done));
      uint64_t mac_end = u.mac->run(mac_ready, b.mac_cycles);
      if (weights_ready > mac_end) {
        t.stalls[static_cast<size_t>(Stall::MAC_WAIT_WEIGHTS)] += weights_ready - mac_end;
        u.mac->free_at = mac_end = weights_ready;
      }
      t.mac_busy += b.mac_cycles;
      wbuf_free = mac_start;
      mac_begin = mac_start;
      ib_free[slot] = mac_end;
      ao_ready = mac_end;
    } else {
      ao_ready = in_done;  // elementwise: the AO reads the input buffer directly
    }

    // Output stage: needs the block's accumulators (or input), its scales and a free output buffer.
    const uint64_t ao_gate = std::max({ao_ready, scales_ready, ob_free[slot]});
    t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)] += wait_for(ao_ready, std::max(u.ao->free_at, ob_free[slot]));
    t.stalls[static_cast<size_t>(Stall::AO_WAIT_OB)] += wait_for(ob_free[slot], std::max(u.ao->free_at, ao_ready));
    const uint64_t ao_end = u.ao->run(ao_gate, b.ao_cycles);
    t.ao_busy += b.ao_cycles;
    acc_free[slot] = ao_end;
    if (!uses_mac) ib_free[slot] = ao_end;

    // OFM write-back from the output buffer.
    uint64_t done = ao_end;
    if (b.ofm_bytes) {
      const mem::Completion w = ofm.port->write(ao_end, b.ofm_bytes, b.ofm_run_bytes, Client::OFM, ofm.limiter);
      done = w.data_done_cycle;
      t.writes_acknowledged_cycle = std::max(t.writes_acknowledged_cycle, w.complete_cycle);
      count(t, ofm.port_index, Traffic::OFM, b.ofm_bytes, true);
    }
    ob_free[slot] = done;
    t.block_done[i] = done;
    if (stages)
      stages->push_back({ifm_req, in_done, wd_start, weights_ready, mac_begin, ao_ready, ao_end - b.ao_cycles, ao_end,
                         done});
    last_done = std::max(last_done, done);
  }
  t.end_cycle = last_done;
  t.writes_acknowledged_cycle = std::max(t.writes_acknowledged_cycle, last_done);
  return t;
}

}  // namespace ethosu::npu
