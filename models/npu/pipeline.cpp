#include "models/npu/pipeline.h"

#include <algorithm>

#include "models/npu/tiles.h"

namespace ethosu::npu {

namespace {

using isa::Access;
using npu::Stall;

uint64_t wait_for(uint64_t ready, uint64_t free_at) { return ready > free_at ? ready - free_at : 0; }

}  // namespace

axi::Completion AxiMap::write_behind(unsigned region, const axi::Completion& read, const std::vector<ByteRun>& runs,
                                     isa::Access client) const {
  uint64_t bytes = 0;
  for (const ByteRun& r : runs) bytes += r.bytes;
  if (bytes == 0) return read;
  axi::Completion c = bus->write(region, read.first_data_done_cycle, runs, client);
  c.complete_cycle = std::max(c.complete_cycle, port_of(region).write_behind_done(read, bytes, limiter_of(region)));
  return c;
}

OpTiming schedule(const isa::Operation& op, uint64_t ready, PipelineBlocks& u, TileSink* sink,
                  const WeightStreamU85* measured) {
  OpTiming t;
  const npu::MacWork mac(op, *u.mac_timing);
  const npu::OfmTiles tiles(op, mac, *u.wd_timing);
  const size_t n = tiles.count();
  t.start_cycle = ready;
  t.times.tiles = n;
  // Elementwise and resize are the AO's work alone, reading the input buffer.
  const bool uses_mac = op.kind != isa::OpKind::ELEMENTWISE && op.kind != isa::OpKind::RESIZE;
  const AxiMap& axi = u.axi;
  // Times of tiles i-1 and i-2 for the double buffers.
  std::array<uint64_t, 2> ib_free{ready, ready}, acc_free{ready, ready}, ob_free{ready, ready};
  uint64_t wbuf_free = ready;  // weight buffer: refilled for block i while the MAC works on i-1
  uint64_t last_done = ready;
  // Transaction mode: each transfer as the runs its bytes are in.
  std::vector<ByteRun> runs;
  const auto read = [&](unsigned region, uint64_t request, uint64_t bytes, uint32_t run_bytes, Access client,
                        void (OfmTiles::*where)(size_t, std::vector<ByteRun>&) const, size_t i) {
    if (!axi.bus) return axi.read(region, request, bytes, run_bytes, client);
    (tiles.*where)(i, runs);
    return axi.bus->read(region, request, runs, client);
  };
  const auto read_stream = [&](unsigned region, uint64_t request, const ByteRun& run, Access client) {
    if (!axi.bus) return axi.read(region, request, run.bytes, 0, client);
    runs.assign(1, run);
    return axi.bus->read(region, request, runs, client);
  };

  for (size_t i = 0; i < n; ++i) {
    const npu::OfmBox box = tiles.box(i);
    const npu::TileTraffic b = tiles.traffic(i);
    const size_t slot = i & 1;
    t.macs += mac.macs(box);

    // IFM (and IFM2) into the input buffer half this block uses.
    const uint64_t ifm_req = std::max(ready, ib_free[slot]);
    uint64_t in_done = ifm_req;
    if (b.ifm_bytes)
      in_done = read(op.ifm.region, ifm_req, b.ifm_bytes, b.ifm_run_bytes, Access::IFM, &OfmTiles::ifm_runs, i)
                    .complete_cycle;
    if (b.ifm2_bytes)
      in_done = std::max(in_done, read(op.ifm2.region, ifm_req, b.ifm2_bytes, b.ifm2_run_bytes, Access::IFM2,
                                       &OfmTiles::ifm2_runs, i)
                                      .complete_cycle);

    // Weights: fetched and decoded into the free weight buffer; the MAC consumes them as they come.
    uint64_t weights_ready = ifm_req, wd_start = ifm_req, wd_busy_end = ifm_req;
    uint64_t weights_request = ifm_req, weights_fetched = ifm_req;
    if (b.total_weight_bytes()) {
      // The WD decodes as the stream arrives: it starts on the first burst and cannot finish before the last.
      uint64_t first_in = UINT64_MAX, fetched = wbuf_free;
      weights_request = std::max(ready, wbuf_free);
      for (unsigned stream = 0; stream < npu::kMaxWeightStreams; ++stream) {
        if (!b.weight_bytes[stream]) continue;
        const auto c = read_stream(op.weight_region, weights_request, tiles.weight_run(i, stream), Access::WEIGHTS);
        first_in = std::min(first_in, c.first_data_done_cycle);
        fetched = std::max(fetched, c.complete_cycle);
      }
      const uint64_t weights = mac.slice_weights(0, tiles.depth_slice(i));
      const uint64_t wd_cycles = u.wd_timing->decode_cycles(op, weights, measured);
      first_in = std::max(first_in, wbuf_free);
      wd_start = std::max(first_in, u.wd->free_at);
      wd_busy_end = u.wd->run(first_in, wd_cycles);
      weights_ready = std::max(wd_busy_end, fetched);
      weights_fetched = fetched;
      t.wd_busy += wd_cycles;
      t.decoded_weights += weights;
    }
    uint64_t scales_ready = ifm_req;
    for (unsigned core = 0; core < npu::kMaxCores; ++core)
      if (b.scale_bytes[core])
        scales_ready = std::max(
            scales_ready, read_stream(op.scale_region, ifm_req, tiles.scale_run(i, core), Access::SCALES).complete_cycle);

    uint64_t ao_ready, mac_begin = in_done, mac_busy_end = in_done;
    if (uses_mac) {
      // The MAC starts when its IFM is in and an accumulator buffer is free; decoded weights stream in
      // alongside, so a slow decoder stretches the MAC's work rather than delaying its start.
      const uint64_t mac_cycles = mac.cycles(box);
      const uint64_t mac_ready = std::max(in_done, acc_free[slot]);
      const uint64_t mac_start = std::max(mac_ready, u.mac->free_at);
      t.stalls[static_cast<size_t>(Stall::MAC_WAIT_IFM)] += wait_for(in_done, std::max(u.mac->free_at, acc_free[slot]));
      t.stalls[static_cast<size_t>(Stall::MAC_WAIT_ACC)] += wait_for(acc_free[slot], std::max(u.mac->free_at, in_done));
      uint64_t mac_end = u.mac->run(mac_ready, mac_cycles);
      mac_busy_end = mac_end;
      if (weights_ready > mac_end) {
        t.stalls[static_cast<size_t>(Stall::MAC_WAIT_WEIGHTS)] += weights_ready - mac_end;
        u.mac->free_at = mac_end = weights_ready;
      }
      t.mac_busy += mac_cycles;
      wbuf_free = mac_start;
      mac_begin = mac_start;
      ib_free[slot] = mac_end;
      ao_ready = mac_end;
    } else {
      ao_ready = in_done;  // elementwise: the AO reads the input buffer directly
    }

    // Output stage: needs the block's accumulators (or input), its scales and a free output buffer.
    const uint64_t ao_cycles = u.ao_timing->cycles(op, mac.ublock_elements(box));
    const uint64_t ao_gate = std::max({ao_ready, scales_ready, ob_free[slot]});
    t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)] += wait_for(ao_ready, std::max(u.ao->free_at, ob_free[slot]));
    t.stalls[static_cast<size_t>(Stall::AO_WAIT_OB)] += wait_for(ob_free[slot], std::max(u.ao->free_at, ao_ready));
    const uint64_t ao_end = u.ao->run(ao_gate, ao_cycles);
    t.ao_busy += ao_cycles;
    acc_free[slot] = ao_end;
    if (!uses_mac) ib_free[slot] = ao_end;

    // OFM write-back from the output buffer.
    uint64_t done = ao_end;
    if (b.ofm_bytes) {
      if (axi.bus) tiles.ofm_runs(i, runs);
      const axi::Completion w = axi.bus ? axi.bus->write(op.ofm.region, ao_end, runs, Access::OFM)
                                        : axi.write(op.ofm.region, ao_end, b.ofm_bytes, b.ofm_run_bytes, Access::OFM);
      done = w.data_done_cycle;
      t.times.writes_acknowledged_cycle = std::max(t.times.writes_acknowledged_cycle, w.complete_cycle);
    }
    ob_free[slot] = done;
    // The last tiles' done cycles, oldest first, for the next operation's BLOCKDEP.
    auto& tail = t.times.last_tiles_done;
    std::rotate(tail.begin(), tail.begin() + 1, tail.end());
    tail.back() = done;
    if (sink)
      sink->tile({ifm_req, in_done, weights_request, weights_fetched, scales_ready, wd_start, weights_ready,
                  wd_busy_end, mac_begin, ao_ready, mac_busy_end, ao_end - ao_cycles, ao_end, done});
    last_done = std::max(last_done, done);
  }
  t.times.end_cycle = last_done;
  t.times.writes_acknowledged_cycle = std::max(t.times.writes_acknowledged_cycle, last_done);
  return t;
}

}  // namespace ethosu::npu
