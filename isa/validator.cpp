#include "isa/validator.h"

#include "sim/int_math.h"
#include "sim/text.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace ethosu::isa {

const char* category_name(Category c) {
  switch (c) {
    case Category::DECODE: return "decode";
    case Category::OUT_OF_REGION: return "out-of-region";
    case Category::SHRAM: return "shram";
    case Category::UNSUPPORTED: return "unsupported";
    case Category::GEOMETRY: return "geometry";
    case Category::ALIGNMENT: return "alignment";
    case Category::LINUX: return "linux";
    case Category::LINUX_VERSION: return "linux-version";
  }
  return "?";
}

void Extent::add(const Span& s) {
  if (s.empty()) return;
  lowest = used ? std::min(lowest, s.lo) : s.lo;
  end = used ? std::max(end, s.hi) : s.hi;
  used = true;
}

void Extent::add(const Extent& e) {
  if (e.used) add(Span{e.lowest, e.end});
}

Extent Report::region_extent(unsigned region) const {
  Extent e;
  for (const Extent& x : extents[region]) e.add(x);
  return e;
}

Extent Report::reads(unsigned region) const {
  Extent e;
  for (size_t a = 0; a < kAccessCount; ++a)
    if (!is_write(static_cast<Access>(a))) e.add(extents[region][a]);
  return e;
}

Extent Report::writes(unsigned region) const {
  Extent e;
  e.add(extent(region, Access::OFM));
  e.add(extent(region, Access::DMA_DST));
  return e;
}

size_t Report::count(Severity s) const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [s](const Finding& f) { return f.severity == s; }));
}

size_t Report::count(Category c) const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [c](const Finding& f) { return f.category == c; }));
}

Span feature_map_span(const FeatureMap& fm, uint32_t width, uint32_t height, uint32_t depth) {
  if (width == 0 || height == 0 || depth == 0) return {};
  const int64_t esize = fm.element.bytes();
  // Channel term: linear in c for NHWC; for NHCWB16 bricks at STRIDE_C with 16 lanes each (whole bricks).
  int64_t c_lo = 0, c_hi = int64_t{depth - 1} * esize;
  if (fm.element.nhcwb16()) {
    const int64_t last_brick = int64_t{(depth - 1) / 16} * fm.stride_c;
    c_lo = std::min<int64_t>(0, last_brick);
    c_hi = std::max<int64_t>(0, last_brick) + 15 * esize;
  }
  Extent e;
  // The address is linear in tile-local x and y, so each tile's box has its extremes at its corners.
  auto tile = [&](unsigned t, uint32_t x0, uint32_t x1, uint32_t y0, uint32_t y1) {  // inclusive bounds
    const int64_t xs[2] = {int64_t{x0} * fm.stride_x, int64_t{x1} * fm.stride_x};
    const int64_t ys[2] = {int64_t{y0} * fm.stride_y, int64_t{y1} * fm.stride_y};
    const auto base = static_cast<int64_t>(fm.base[t]);
    e.add(Span{base + std::min(xs[0], xs[1]) + std::min(ys[0], ys[1]) + c_lo,
               base + std::max(xs[0], xs[1]) + std::max(ys[0], ys[1]) + c_hi + esize});
  };
  const uint32_t w_left = std::min(width, fm.width0);
  tile(0, 0, w_left - 1, 0, std::min(height, fm.height0) - 1);
  if (height > fm.height0) tile(2, 0, w_left - 1, 0, height - fm.height0 - 1);
  if (width > fm.width0) {
    const uint32_t w_right = width - fm.width0;
    tile(1, 0, w_right - 1, 0, std::min(height, fm.height1) - 1);
    if (height > fm.height1) tile(3, 0, w_right - 1, 0, height - fm.height1 - 1);
  }
  return {e.lowest, e.end};
}

namespace {

constexpr int64_t kMaxRegionOffset = int64_t{1} << 40;  // U65 region offsets are 40-bit (spec 01 section 6)

using sim::hex;
using sim::round_up;

unsigned div_up(uint64_t a, uint64_t b) { return static_cast<unsigned>(sim::ceil_div(a, b)); }

class Checker {
 public:
  Checker(const ValidatorOptions& o, Report& r) : opt_(o), arch_(architecture(o.variant)), r_(r) {}

  void operation(const Command& c, const Operation& op, const StreamState& st) {
    cmd_ = &c;
    ++r_.operations;
    required(op, st);
    if (op.kind == OpKind::DMA) {
      dma(op);
      return;
    }
    chaining(op, st);
    feature_maps(op);
    streams(op);
    kernel(op);
    if (arch_.shram_banks) shram(op);
    if (const auto why = unknown_behaviour(op))
      add(Severity::WARNING, Category::UNSUPPORTED, "not modelled, the simulator refuses to run it: " + *why);
  }

  void add(Severity sev, Category cat, const std::string& what, std::optional<Access> a = std::nullopt,
           int region = -1, Span range = {}) {
    Finding f;
    f.severity = sev;
    f.category = cat;
    f.offset = cmd_->offset;
    f.operation = cmd_->info ? std::string(cmd_->info->name) : "?";
    f.access = a;
    f.region = region;
    f.range = range;
    if (region >= 0) f.region_size_bytes = opt_.region_size_bytes[static_cast<size_t>(region)];
    f.message = hex_offset(f.offset) + ": " + f.operation + ": " + what;
    r_.findings.push_back(std::move(f));
  }

  void set_command(const Command& c) { cmd_ = &c; }

  // At NPU_OP_STOP: a chained OFM nothing consumed is lost.
  void stop(const Command& c) {
    cmd_ = &c;
    if (chained_ofm_at_)
      add(Severity::ERROR, Category::LINUX,
          "the stream ends with the chained OFM of the operation at " + hex_offset(*chained_ofm_at_) +
              " unconsumed (a careful driver's rule)");
    chained_ofm_at_.reset();
  }

 private:
  // Records an access and reports it when it leaves its region.
  void access(Access a, unsigned region, Span s) {
    if (s.empty()) return;
    r_.extents[region][static_cast<size_t>(a)].add(s);
    const auto& size = opt_.region_size_bytes[region];
    std::string why;
    if (s.lo < 0)
      why = "starts below the region base";
    else if (s.hi > kMaxRegionOffset)
      why = "ends beyond the 40-bit region offset space";
    else if (size && static_cast<uint64_t>(s.hi) > *size)
      why = "ends beyond the region size " + hex(static_cast<int64_t>(*size));
    if (!why.empty())
      add(Severity::ERROR, Category::OUT_OF_REGION,
          std::string(access_name(a)) + " region " + std::to_string(region) + " bytes [" + hex(s.lo) + ", " +
              hex(s.hi) + ") " + why,
          a, static_cast<int>(region), s);
  }

  void element_type(const char* name, const ElementType& e) {
    if (e.precision == enums::activation_precision::B64)
      add(Severity::ERROR, Category::UNSUPPORTED,
          std::string(name) + " precision B64: no 64-bit feature maps on the U65 (spec 01 section 5)");
  }

  void fm_alignment(const char* name, const FeatureMap& fm, uint32_t w, uint32_t h) {
    const uint64_t esize = fm.element.bytes();
    const bool brick = fm.element.nhcwb16();
    const uint64_t base_align = brick ? 16 : esize;
    const bool tiles[4] = {true, w > fm.width0, h > fm.height0, w > fm.width0 && h > fm.height1};
    for (unsigned t = 0; t < 4; ++t)
      if (tiles[t] && fm.base[t] % base_align)
        add(Severity::WARNING, Category::ALIGNMENT,
            std::string(name) + " BASE" + std::to_string(t) + " " + hex(static_cast<int64_t>(fm.base[t])) +
                " is not a multiple of " + std::to_string(base_align) + " (spec 01 section 6)");
    auto stride = [&](const char* which, int64_t v, uint64_t align) {
      if (static_cast<uint64_t>(v < 0 ? -v : v) % align)
        add(Severity::WARNING, Category::ALIGNMENT,
            std::string(name) + " STRIDE_" + which + " " + std::to_string(v) + " is not a multiple of " +
                std::to_string(align) + " (spec 01 section 6)");
    };
    if (brick) {
      stride("Y", fm.stride_y, 16);
      if (fm.depth > 16) stride("C", fm.stride_c, 16);
    } else {
      stride("X", fm.stride_x, esize);
      stride("Y", fm.stride_y, esize);
    }
  }

  // The U85's chaining buffer holds one OFM for the next operation: it must read it (as IFM or IFM2), and an
  // operation that reads a chained input needs the previous one to have left it there. A careful driver's rules;
  // Linux checks neither. Mainline Linux sizes a chained feature map from its memory registers, which Vela leaves
  // unwritten, and rejects the stream; the hardened validator skips chained feature maps.
  void chaining(const Operation& op, const StreamState& st) {
    if (!op.v2()) return;
    const bool ifm2 = op.uses_ifm2() || op.weights_from_ifm2;
    const bool reads_chain = op.ifm.chained() || (ifm2 && op.ifm2.chained());
    if (chained_ofm_at_ && !reads_chain)
      add(Severity::ERROR, Category::LINUX,
          "does not read the chained OFM of the operation at " + hex_offset(*chained_ofm_at_) +
              " (a careful driver's rule)");
    if (reads_chain && !chained_ofm_at_)
      add(Severity::ERROR, Category::LINUX,
          "reads a chained input that no previous operation left in the chaining buffer (a careful driver's rule)");
    chained_ofm_at_.reset();
    if (op.ofm.chained()) chained_ofm_at_ = cmd_->offset;
    const auto mainline = [&](const char* name, const FeatureMap& fm, Cmd region, Cmd base0) {
      if (fm.chained() && (!st.written(region) || !st.written(base0)))
        add(Severity::WARNING, Category::LINUX_VERSION,
            std::string("mainline Linux rejects the stream: it sizes the chained ") + name + " from " +
                std::string(command_info(region).name.substr(8)) + "/" + std::string(command_info(base0).name.substr(8)) +
                ", never written (the hardened validator skips chained feature maps)");
    };
    mainline("IFM", op.ifm, Cmd::NPU_SET_IFM_REGION, Cmd::NPU_SET_IFM_BASE0);
    if (ifm2) mainline("IFM2", op.ifm2, Cmd::NPU_SET_IFM2_REGION, Cmd::NPU_SET_IFM2_BASE0);
    mainline("OFM", op.ofm, Cmd::NPU_SET_OFM_REGION, Cmd::NPU_SET_OFM_BASE0);
  }

  void feature_map(Access a, const char* name, const FeatureMap& fm) {
    element_type(name, fm.element);
    access(a, fm.region, feature_map_span(fm, fm.width, fm.height, fm.depth));
    fm_alignment(name, fm, fm.width, fm.height);
  }

  void feature_maps(const Operation& op) {
    if (op.ifm.width == 0 || op.ifm.height == 0)
      add(Severity::ERROR, Category::LINUX,
          "derived IFM size " + std::to_string(op.ifm_upscaled_width) + " x " +
              std::to_string(op.ifm_upscaled_height) +
              " is not positive ((OFM-1)*stride + kernel - pads, spec 03 section 3.1)");
    // A chained feature map or one in no storage (a scalar operand, an OFM not written) touches no memory.
    if (op.reads_ifm()) feature_map(Access::IFM, "IFM", op.ifm);
    if (op.reads_ifm2()) feature_map(Access::IFM2, "IFM2", op.ifm2);
    if (op.writes_ofm()) {
      FeatureMap stored = op.ofm;  // the tensor the OFM registers address: transposed on the U85
      const OfmCoord e = stored_ofm_extents(op);
      stored.width = e.x, stored.height = e.y, stored.depth = e.c;
      feature_map(Access::OFM, "OFM", stored);
    }

    if (op.ifm.element.precision == enums::activation_precision::B32 && !op.ifm.element.is_signed())
      add(Severity::WARNING, Category::UNSUPPORTED, "IFM precision U32 is encodable but unused (spec 01 section 5)");

    const bool same_depth = op.kind == OpKind::DEPTHWISE || op.kind == OpKind::ELEMENTWISE ||
                            (op.kind == OpKind::POOL && op.pooling_mode != enums::pooling_mode::REDUCE_SUM);
    if (same_depth && op.ifm.depth != op.ofm.depth)
      add(Severity::WARNING, Category::GEOMETRY,
          "OFM depth " + std::to_string(op.ofm.depth) + " differs from IFM depth " + std::to_string(op.ifm.depth) +
              " (spec 03 section 3.1)");
    if (op.kind == OpKind::POOL && op.pooling_mode == enums::pooling_mode::REDUCE_SUM && op.ofm.depth != 1)
      add(Severity::WARNING, Category::GEOMETRY, "REDUCE_SUM with OFM depth " + std::to_string(op.ofm.depth) +
                                                     " (it sums over channels into depth 1, spec 03 section 7)");
  }

  void streams(const Operation& op) {
    const auto stream = [&](Access a, unsigned region, const StreamRef& r) {
      access(a, region, {static_cast<int64_t>(r.base), static_cast<int64_t>(r.base + r.length_bytes)});
    };
    if (op.v2()) {
      // The U85 reads one weight stream per weight decoder (WEIGHT, WEIGHT1-3; an unused one has length 0) and one
      // scale stream, as the engine does.
      if (op.reads_weights())
        for (const StreamRef& w : op.weights)
          if (w.length_bytes) stream(Access::WEIGHTS, op.weight_region, w);
      if (op.reads_scales()) stream(Access::SCALES, op.scale_region, op.scales[0]);
      return;
    }
    if (op.cores() > arch_.cores)
      add(Severity::ERROR, Category::UNSUPPORTED, "PARALLEL_MODE dual-core on a single-core variant");
    const unsigned cores = std::min(op.cores(), arch_.cores);  // a missing core reads nothing
    for (unsigned core = 0; core < cores; ++core) {
      const std::string sfx = core ? "1" : "";
      if (op.reads_weights()) {
        const StreamRef& w = op.weights[core];
        stream(Access::WEIGHTS, op.weight_region, w);
        if (w.base % 16 || w.length_bytes % 16)
          add(Severity::WARNING, Category::ALIGNMENT,
              "WEIGHT" + sfx + "_BASE " + hex(static_cast<int64_t>(w.base)) + " / LENGTH " +
                  std::to_string(w.length_bytes) + " not multiples of 16 (spec 01 section 6)");
      }
      if (op.reads_scales()) {
        const StreamRef& sc = op.scales[core];
        stream(Access::SCALES, op.scale_region, sc);
        if (sc.length_bytes % 16)
          add(Severity::WARNING, Category::ALIGNMENT,
              "SCALE" + sfx + "_LENGTH " + std::to_string(sc.length_bytes) +
                  " is not a multiple of 16 (spec 01 section 6)");
      }
    }
  }

  void kernel(const Operation& op) {
    if (!op.uses_kernel()) return;
    const Kernel& k = op.kernel;
    if (k.stride_x > 3 || k.stride_y > 3)
      add(Severity::WARNING, Category::UNSUPPORTED,
          "stride " + std::to_string(k.stride_x) + "x" + std::to_string(k.stride_y) +
              ": 4 is encodable but beyond the supported 1..3 (spec 05 section 1)");
    if (k.decomposition == enums::kernel_decomposition::D4X4)
      add(Severity::WARNING, Category::UNSUPPORTED,
          "4x4 kernel decomposition: not emitted by Vela for the U65; weight order unspecified (spec 04)");
    if ((k.dilated_width - 1) % k.dilation_x || (k.dilated_height - 1) % k.dilation_y)
      add(Severity::WARNING, Category::GEOMETRY,
          "KERNEL_*_M1 is not a multiple of the dilation (registers hold dilation*(k-1), spec 01 section 5)");
    if (k.dilated_height > 64 || uint64_t{k.width} * k.height > 65536)
      add(Severity::WARNING, Category::UNSUPPORTED,
          "kernel " + std::to_string(k.width) + "x" + std::to_string(k.height) +
              " beyond the supported range (dilated height <= 64, w*h <= 65536; spec 03 section 3.2)");
    if (op.padding.right > 128 || op.padding.bottom > 128)
      add(Severity::ERROR, Category::UNSUPPORTED, "PAD_RIGHT/PAD_BOTTOM above 128 (spec 01 section 4.2)");
  }

  // SHRAM banks an operation needs, following the buffer sizing of spec 05 sections 3 and 4 but
  // without Vela's granule rounding, so that only layouts that cannot hold the block are reported.
  void shram(const Operation& op) {
    const unsigned usable = arch_.usable_banks(op.uses_lut());
    const ShramConfig& s = op.shram;
    const bool ew = op.kind == OpKind::ELEMENTWISE;
    const bool binary_map = op.reads_ifm2();
    auto bank_reg = [&](const char* name, uint32_t v) {
      if (v > usable)
        add(Severity::ERROR, Category::SHRAM,
            std::string(name) + " = " + std::to_string(v) + " is beyond the " + std::to_string(usable) +
                " banks below the LUT (spec 05 section 3)");
      else if (v % 2)
        add(Severity::WARNING, Category::SHRAM, std::string(name) + " = " + std::to_string(v) + " is odd");
    };
    bank_reg("IFM_IB_END", s.ib_end);
    if (!ew) bank_reg("AB_START", s.ab_start);
    if (binary_map) bank_reg("IFM2_IB_START", s.ifm2_ib_start);

    const BlockConfig& b = op.block;
    const unsigned ifm_bits = op.ifm.element.bits();
    uint64_t iw = b.width, ih = b.height, id = b.depth;
    if (!ew) {
      const Kernel& k = op.kernel;
      const bool up = op.upscale != enums::ifm_upscale_mode::NONE;
      const uint64_t nearest = op.upscale == enums::ifm_upscale_mode::NEAREST ? 1 : 0;
      // In whole OFM micro-blocks, as Vela sizes it.
      auto axis = [&](uint64_t blk, uint64_t stride, uint64_t dilated, unsigned ublock) {
        const uint64_t need = (blk - 1) * stride + std::min<uint64_t>(8, dilated) + nearest;
        return round_up(up ? div_up(need, 2) : need, ublock);
      };
      iw = axis(b.width, k.stride_x, k.dilated_width, arch_.ofm_ublock.w);
      ih = axis(b.height, k.stride_y, k.dilated_height, arch_.ofm_ublock.h);
      if (op.kind == OpKind::CONV) {
        const bool narrow = k.weight_order == enums::weight_order::PART_KERNEL_FIRST || ifm_bits > 8;
        id = std::min<uint64_t>(narrow ? 16 : 32, round_up(op.ifm.depth, 8));
      }
    }
    const uint64_t ifm_bytes = iw * ih * round_up(id * ifm_bits / 8, 8);
    const unsigned ifm_banks = 2 * div_up(ifm_bytes, 1024);  // double-buffered
    const std::string ifm_need = "needs " + std::to_string(ifm_banks) + " banks for the IFM block " +
                                 std::to_string(iw) + "x" + std::to_string(ih) + "x" + std::to_string(id);
    if (ew && binary_map) {
      if (2 + ifm_banks > s.ifm2_ib_start)
        add(Severity::ERROR, Category::SHRAM,
            "IFM buffer banks [2, IFM2_IB_START=" + std::to_string(s.ifm2_ib_start) + ") too small: " + ifm_need);
      if (s.ifm2_ib_start + ifm_banks > usable)
        add(Severity::ERROR, Category::SHRAM,
            "IFM2 buffer from bank " + std::to_string(s.ifm2_ib_start) + " overruns bank " +
                std::to_string(usable) + ": " + ifm_need);
    } else if (2 + ifm_banks > s.ib_end) {
      add(Severity::ERROR, Category::SHRAM,
          "IFM buffer banks [2, IB_END=" + std::to_string(s.ib_end) + ") too small: " + ifm_need);
    }
    if (ew) return;
    if (s.ib_end > s.ab_start)
      add(Severity::ERROR, Category::SHRAM,
          "IB_END " + std::to_string(s.ib_end) + " overlaps the accumulators at AB_START " +
              std::to_string(s.ab_start));
    const unsigned acc_bits = op.acc_format == enums::acc_format::I40   ? 40
                              : op.acc_format == enums::acc_format::F16 ? 16
                                                                        : 32;
    // The accumulators hold the block clipped to the OFM: both Vela cores size them so (the U65's "Conv1D"
    // layout for an OFM of height 1 under a block of height 2).
    const uint64_t acc_w = std::min(b.width, op.ofm.width), acc_h = std::min(b.height, op.ofm.height);
    const uint64_t acc_d = std::min(b.depth, op.ofm.depth);
    const uint64_t acc_bytes = acc_w * acc_h * round_up(acc_d, 8) * acc_bits / 8;
    const unsigned acc_banks = 2 * div_up(acc_bytes, 1024);
    if (s.ab_start + acc_banks > usable)
      add(Severity::ERROR, Category::SHRAM,
          "accumulators for OFM tile " + std::to_string(acc_w) + "x" + std::to_string(acc_h) + "x" +
              std::to_string(acc_d) + " (clipped to the OFM) need " + std::to_string(acc_banks) +
              " banks from AB_START " + std::to_string(s.ab_start) + ", beyond bank " + std::to_string(usable));
  }

  void dma(const Operation& op) {
    const Dma& d = op.dma;
    auto side = [&](Access a, const DmaEndpoint& e) {
      const Span s = dma_span(d, e);
      if (!e.internal()) {
        access(a, e.region, s);
        return;
      }
      // The U85's internal destinations are its LUT RAM, whose addressing is not modelled here.
      if (!arch_.shram_banks) return;
      r_.shram.add(s);
      if (!s.empty() && (s.lo < 0 || static_cast<uint64_t>(s.hi) > arch_.shram_bytes()))
        add(Severity::ERROR, Category::SHRAM,
            std::string(access_name(a)) + " SHRAM bytes [" + hex(s.lo) + ", " + hex(s.hi) + ") outside the " +
                std::to_string(arch_.shram_bytes()) + "-byte SHRAM",
            a, -1, s);
      if (e.address % 16)
        add(Severity::WARNING, Category::ALIGNMENT,
            std::string(access_name(a)) + " SHRAM address " + hex(static_cast<int64_t>(e.address)) +
                " is not 16-byte aligned (spec 01 section 6)");
    };
    side(Access::DMA_SRC, d.src);
    side(Access::DMA_DST, d.dst);
    if (d.dst.internal() && arch_.shram_banks) {
      if (d.length_bytes % 16)
        add(Severity::WARNING, Category::ALIGNMENT,
            "DMA length " + std::to_string(d.length_bytes) +
                " to SHRAM is not a multiple of 16 (spec 01 section 6)");
      // Vela writes mask 3 on every U65 (spec 01 section 6), so only a mask naming no core is suspicious.
      if ((d.dst.region & ((1u << arch_.cores) - 1)) == 0)
        add(Severity::WARNING, Category::SHRAM,
            "internal DMA destination core mask " + std::to_string(d.dst.region) + " selects no core");
    }
  }

  // Registers the operation reads that no command ever wrote: the hardened Linux validator rejects
  // this (spec 06 section 4.4); the NPU would use the reset value 0.
  void required(const Operation& op, const StreamState& st) {
    std::vector<Cmd> need;
    auto fm = [&](Cmd region, Cmd base0, Cmd w0, Cmd h0, Cmd h1, Cmd sx, Cmd sy, Cmd sc, Cmd prec) {
      need.insert(need.end(), {region, base0, w0, h0, h1, sx, sy, sc, prec});
    };
    if (op.kind == OpKind::DMA) {
      need = {Cmd::NPU_SET_DMA0_SRC_REGION, Cmd::NPU_SET_DMA0_DST_REGION, Cmd::NPU_SET_DMA0_SRC,
              Cmd::NPU_SET_DMA0_DST, Cmd::NPU_SET_DMA0_LEN};
      const bool src2 = op.dma.src.stride_mode != enums::dma_stride_mode::D1;
      const bool dst2 = op.dma.dst.stride_mode != enums::dma_stride_mode::D1;
      const bool src3 = op.dma.src.stride_mode == enums::dma_stride_mode::D3;
      const bool dst3 = op.dma.dst.stride_mode == enums::dma_stride_mode::D3;
      if (op.v2()) {
        // The U85 has source and destination strides (the hardened validator requires each side's).
        if (src2 || dst2) need.push_back(Cmd::NPU_SET_DMA0_SIZE0);
        if (src3 || dst3) need.push_back(Cmd::NPU_SET_DMA0_SIZE1);
        if (src2) need.push_back(Cmd::NPU_SET_DMA0_SRC_STRIDE0);
        if (src3) need.push_back(Cmd::NPU_SET_DMA0_SRC_STRIDE1);
        if (dst2) need.push_back(Cmd::NPU_SET_DMA0_DST_STRIDE0);
        if (dst3) need.push_back(Cmd::NPU_SET_DMA0_DST_STRIDE1);
      } else {
        if (src2 || dst2) need.insert(need.end(), {Cmd::NPU_SET_DMA0_SIZE0, Cmd::NPU_SET_DMA0_SKIP0});
        if (src3 || dst3) need.insert(need.end(), {Cmd::NPU_SET_DMA0_SIZE1, Cmd::NPU_SET_DMA0_SKIP1});
      }
    } else {
      if (op.reads_ifm())
        fm(Cmd::NPU_SET_IFM_REGION, Cmd::NPU_SET_IFM_BASE0, Cmd::NPU_SET_IFM_WIDTH0_M1, Cmd::NPU_SET_IFM_HEIGHT0_M1,
           Cmd::NPU_SET_IFM_HEIGHT1_M1, Cmd::NPU_SET_IFM_STRIDE_X, Cmd::NPU_SET_IFM_STRIDE_Y,
           Cmd::NPU_SET_IFM_STRIDE_C, Cmd::NPU_SET_IFM_PRECISION);
      if (op.writes_ofm())
        fm(Cmd::NPU_SET_OFM_REGION, Cmd::NPU_SET_OFM_BASE0, Cmd::NPU_SET_OFM_WIDTH0_M1, Cmd::NPU_SET_OFM_HEIGHT0_M1,
           Cmd::NPU_SET_OFM_HEIGHT1_M1, Cmd::NPU_SET_OFM_STRIDE_X, Cmd::NPU_SET_OFM_STRIDE_Y,
           Cmd::NPU_SET_OFM_STRIDE_C, Cmd::NPU_SET_OFM_PRECISION);
      need.insert(need.end(), {Cmd::NPU_SET_IFM_DEPTH_M1, Cmd::NPU_SET_OFM_WIDTH_M1, Cmd::NPU_SET_OFM_HEIGHT_M1,
                               Cmd::NPU_SET_OFM_DEPTH_M1});
      if (op.reads_ifm2())
        fm(Cmd::NPU_SET_IFM2_REGION, Cmd::NPU_SET_IFM2_BASE0, Cmd::NPU_SET_IFM2_WIDTH0_M1,
           Cmd::NPU_SET_IFM2_HEIGHT0_M1, Cmd::NPU_SET_IFM2_HEIGHT1_M1, Cmd::NPU_SET_IFM2_STRIDE_X,
           Cmd::NPU_SET_IFM2_STRIDE_Y, Cmd::NPU_SET_IFM2_STRIDE_C, Cmd::NPU_SET_IFM2_PRECISION);
      if (op.uses_kernel())
        need.insert(need.end(), {Cmd::NPU_SET_KERNEL_WIDTH_M1, Cmd::NPU_SET_KERNEL_HEIGHT_M1,
                                 Cmd::NPU_SET_KERNEL_STRIDE, Cmd::NPU_SET_IFM_PAD_TOP, Cmd::NPU_SET_IFM_PAD_LEFT,
                                 Cmd::NPU_SET_IFM_PAD_RIGHT, Cmd::NPU_SET_IFM_PAD_BOTTOM});
      if (op.reads_weights())
        need.insert(need.end(), {Cmd::NPU_SET_WEIGHT_REGION, Cmd::NPU_SET_WEIGHT_BASE, Cmd::NPU_SET_WEIGHT_LENGTH});
      if (op.reads_scales())
        need.insert(need.end(), {Cmd::NPU_SET_SCALE_REGION, Cmd::NPU_SET_SCALE_BASE, Cmd::NPU_SET_SCALE_LENGTH});
      // The hardened validator's U85 rules: an elementwise operation's IFM broadcast, and IFM2's when it is read.
      if (op.v2() && op.kind == OpKind::ELEMENTWISE) need.push_back(Cmd::NPU_SET_IFM_BROADCAST);
      if (op.v2() && op.uses_ifm2()) need.push_back(Cmd::NPU_SET_IFM2_BROADCAST);
    }
    std::string missing;
    for (Cmd c : need)
      if (!st.written(c)) missing += (missing.empty() ? "" : ", ") + std::string(command_info(c).name);
    if (!missing.empty())
      add(Severity::WARNING, Category::LINUX,
          "reads registers never written (hardened Linux validator rejects; the NPU uses 0): " + missing);
  }

  const ValidatorOptions& opt_;
  const Architecture& arch_;
  Report& r_;
  const Command* cmd_ = nullptr;
  std::optional<uint32_t> chained_ofm_at_;  // the operation whose OFM waits in the chaining buffer
};

// Linux rejections visible on single commands or in the decoder's diagnostics (spec 06 section 4.4).
void linux_command_rules(const Stream& s, Checker& ck) {
  for (const Command& c : s.commands) {
    if (!c.info) continue;
    ck.set_command(c);
    switch (c.cmd()) {
      case Cmd::NPU_OP_IRQ: ck.add(Severity::ERROR, Category::LINUX, "NPU_OP_IRQ is not allowed"); break;
      case Cmd::NPU_OP_CONV:
        // The U85's param bit 0 takes the weights from IFM2 (MatMul), which its validator sizes.
        if (c.param() && s.version == IsaVersion::V1) ck.add(Severity::ERROR, Category::LINUX, "non-zero param on the U65");
        break;
      case Cmd::NPU_OP_BRANCH: {
        // A careful driver's rule (Linux does not follow branches): the target is a command of this stream.
        const uint64_t target = c.get(Field::NPU_OP_BRANCH_branch_target);
        if (std::none_of(s.commands.begin(), s.commands.end(), [&](const Command& t) { return t.offset == target; }))
          ck.add(Severity::ERROR, Category::LINUX, "branch target " + hex(static_cast<int64_t>(target)) +
                                                       " is not a command of the stream");
        break;
      }
      case Cmd::NPU_OP_RESIZE:
        // Mainline sizes none of its accesses (a WARN_ON and a TODO); the hardened validator refuses it.
        ck.add(Severity::WARNING, Category::LINUX_VERSION,
               "the hardened Linux validator rejects NPU_OP_RESIZE; mainline accepts it without sizing its accesses");
        break;
      case Cmd::NPU_SET_DMA0_SRC_REGION:
      case Cmd::NPU_SET_DMA0_DST_REGION: {
        const Field f = c.cmd() == Cmd::NPU_SET_DMA0_SRC_REGION ? Field::NPU_SET_DMA0_SRC_REGION_stride_mode
                                                                 : Field::NPU_SET_DMA0_DST_REGION_stride_mode;
        if (c.get(f) == 3) ck.add(Severity::ERROR, Category::LINUX, "DMA stride mode 3");
        break;
      }
      default: break;
    }
  }
}

void linux_diagnostic_rules(const Stream& s, Report& r) {
  for (const Diagnostic& d : s.diagnostics) {
    const char* what = nullptr;
    switch (d.problem) {
      case Problem::MISSING_STOP: what = "the stream does not end with NPU_OP_STOP"; break;
      case Problem::AFTER_STOP: what = "NPU_OP_STOP is not the last command"; break;
      case Problem::TRUNCATED: what = "cmd1 header in the last word"; break;
      case Problem::RESERVED_HEADER: what = "reserved opcode bits set"; break;
      default: break;
    }
    if (!what) continue;
    Finding f;
    f.severity = Severity::ERROR;
    f.category = Category::LINUX;
    f.offset = d.offset;
    f.message = hex_offset(d.offset) + ": " + what;
    r.findings.push_back(std::move(f));
  }
}

}  // namespace

Report validate(const Stream& s, const ValidatorOptions& options) {
  Report r;
  r.variant = options.variant;
  r.region_size_bytes = options.region_size_bytes;
  std::vector<Diagnostic> diagnostics = s.diagnostics;
  // What the configuration refuses, unless the stream was decoded for it already.
  for (Diagnostic& d : architecture_problems(s, architecture(options.variant)))
    if (std::find_if(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& e) {
          return e.offset == d.offset && e.message == d.message;
        }) == diagnostics.end())
      diagnostics.push_back(std::move(d));
  for (const Diagnostic& d : diagnostics) {
    Finding f;
    f.severity = d.severity;
    f.category = Category::DECODE;
    f.offset = d.offset;
    f.message = d.message + " [" + problem_name(d.problem) + "]";
    r.findings.push_back(std::move(f));
  }
  linux_diagnostic_rules(s, r);
  Checker ck(options, r);
  linux_command_rules(s, ck);
  walk(s, [&](const Event& e, const StreamState& st) {
    if (e.kind == EventKind::OPERATION) ck.operation(e.command, *e.operation, st);
    if (e.kind == EventKind::STOP) ck.stop(e.command);
  });
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.offset < b.offset; });
  return r;
}

std::string render(const Report& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "variant %s: %zu operation(s), %zu error(s), %zu warning(s)\n",
                variant_name(r.variant), r.operations,
                r.count(Severity::ERROR), r.count(Severity::WARNING));
  out += line;
  std::snprintf(line, sizeof line, "%-6s %-8s %14s %14s %14s\n", "region", "access", "lowest", "end", "size");
  out += line;
  for (unsigned reg = 0; reg < kRegionCount; ++reg) {
    const std::string size = r.region_size_bytes[reg] ? hex(static_cast<int64_t>(*r.region_size_bytes[reg])) : "-";
    for (size_t a = 0; a < kAccessCount; ++a) {
      const Extent& e = r.extents[reg][a];
      if (!e.used) continue;
      std::snprintf(line, sizeof line, "%-6u %-8s %14s %14s %14s\n", reg, access_name(static_cast<Access>(a)),
                    hex(e.lowest).c_str(), hex(e.end).c_str(), size.c_str());
      out += line;
    }
  }
  if (r.shram.used) {
    std::snprintf(line, sizeof line, "%-6s %-8s %14s %14s %14s\n", "shram", "DMA", hex(r.shram.lowest).c_str(),
                  hex(r.shram.end).c_str(), hex(static_cast<int64_t>(architecture(r.variant).shram_bytes())).c_str());
    out += line;
  }
  for (const Finding& f : r.findings)
    out += std::string(f.severity == Severity::ERROR ? "error" : "warning") + " [" + category_name(f.category) +
           "] " + f.message + "\n";
  return out;
}

}  // namespace ethosu::isa
